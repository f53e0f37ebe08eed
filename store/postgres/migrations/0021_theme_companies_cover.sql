-- The companies of a signal sum the insights of many day rows per theme; carrying n in an index on the
-- primary key's columns lets that sum read the index alone.
CREATE INDEX theme_day_companies_cover ON theme_day_companies (workspace_id, theme, day, company_id) INCLUDE (n);
