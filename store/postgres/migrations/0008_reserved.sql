-- Reserved: this number belongs to the status, links and history migration written on another branch at
-- the same time. When both branches are merged, that migration replaces this file; until then it is empty
-- so that the numbers stay without gaps.
SELECT 1;
