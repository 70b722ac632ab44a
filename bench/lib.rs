//! Nothing: the package holds the benchmarks (`pipeline.rs`, `make bench`).
