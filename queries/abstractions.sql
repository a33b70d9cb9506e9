-- Views over the abstraction tables (schema/abstraction.py; written by abstraction/store.py).
-- Paths are relative to the data directory (the loader sets DuckDB's file_search_path to it).
-- The abstraction's name is the directory name under abstractions/.

-- One row per (abstraction, round, canonical hand): its bucket and the bucket's parent.
CREATE OR REPLACE VIEW abstraction_buckets AS
SELECT regexp_extract(filename, 'abstractions/([^/]+)/round[0-9]+\.parquet$', 1) AS abstraction,
       "round", hand, bucket, parent_bucket
FROM read_parquet('abstractions/*/round*.parquet', filename = true);

-- One row per bucket: parent, hand count, probability, mean equity, k-means centroid.
CREATE OR REPLACE VIEW abstraction_centroids AS
SELECT regexp_extract(filename, 'abstractions/([^/]+)/centroids\.parquet$', 1) AS abstraction,
       "round", bucket, parent_bucket, hands, weight, mean_equity, centroid
FROM read_parquet('abstractions/*/centroids.parquet', filename = true);

-- Equity range of each bucket within its parent; interval = exactly those equities.
CREATE OR REPLACE VIEW abstraction_thresholds AS
SELECT regexp_extract(filename, 'abstractions/([^/]+)/thresholds\.parquet$', 1) AS abstraction,
       "round", parent_bucket, bucket, min_equity, max_equity, "interval"
FROM read_parquet('abstractions/*/thresholds.parquet', filename = true);

-- Bucket size distribution per abstraction and round.
CREATE OR REPLACE VIEW abstraction_bucket_sizes AS
SELECT abstraction, "round", count(*) AS buckets, min(hands) AS min_hands,
       median(hands) AS median_hands, max(hands) AS max_hands,
       min(weight) AS min_weight, max(weight) AS max_weight
FROM abstraction_centroids
GROUP BY abstraction, "round";
