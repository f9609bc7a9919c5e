/// An object to watch through a `weak` reference: it must be freed once
/// whatever held it is disposed (DESIGN.md guarantee 8).
final class LifetimeToken: Sendable {
    init() {}
}
