-- Reserved for a migration being written on another branch; kept empty so that numbers stay contiguous.
SELECT 1;
