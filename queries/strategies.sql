-- Strategy tables of solve runs (schema/strategy.py; written by solve/table.py): one row per
-- (strategy, information set, action). Paths are relative to the data directory.
CREATE OR REPLACE VIEW strategies AS
SELECT * FROM read_parquet('strategies/*/*.parquet', union_by_name = true);
