-- 0801 collection priority without a bound (issue 14 review).
-- Why: numeric(18, 4) overflows with large weights times amounts in currencies of small units (XOF,
-- JPY); the overflow happened inside the daily close and failed the tenant's whole close. The score
-- only orders the worklist, so an unbounded numeric costs nothing.
alter table collection_cases alter column priority type numeric;
