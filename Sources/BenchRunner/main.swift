import BenchKit
