// A run writes the CSV whose schema BenchAnalysis declares (`CSVSchema`,
// `BenchmarkSchema`, `Metric`, `VariantID`, `CSVRow`): every BenchKit file,
// and every client of BenchKit, names those types without a second import.
@_exported import BenchAnalysis
