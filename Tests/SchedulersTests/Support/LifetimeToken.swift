/// An object to watch through a `weak` reference: it must be freed once
/// whatever held it is disposed (guarantee 8 in Guarantees.md).
final class LifetimeToken: Sendable {
    init() {}
}
