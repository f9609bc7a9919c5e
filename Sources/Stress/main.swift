import StressKit
