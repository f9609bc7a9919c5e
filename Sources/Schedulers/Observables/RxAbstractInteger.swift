/// The integer types `interval`, `timer` and `range` can count in, as RxSwift 6 names them.
public typealias RxAbstractInteger = FixedWidthInteger
