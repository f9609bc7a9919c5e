import XCTest
@testable import StressKit
