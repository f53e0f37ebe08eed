-- The planner estimates how many records a search matches by trying the LIKE pattern on the histogram of
-- search_text, and on that estimate chooses between walking the listing index newest first (a term found
-- in many records) and reading every match through the trigram index, then sorting (a rare term). With
-- the default 101 histogram entries, a term in about one record of a hundred is missed by the whole
-- sample about one ANALYZE in three: it is then estimated at the floor of 1 in 10,000, and every search
-- for it reads and sorts all its matches until the next ANALYZE. A ten times larger histogram puts about
-- ten entries on such a term, so its estimate no longer depends on the draw. The price: planning a search
-- tries the pattern on 1,000 entries instead of 100, and ANALYZE samples ten times as many rows.
ALTER TABLE records ALTER COLUMN search_text SET STATISTICS 1000;
ANALYZE records;
