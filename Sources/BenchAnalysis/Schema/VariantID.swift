/// What a variant measures, which decides how `compare` reads it.
package enum VariantRole: String, Sendable, CaseIterable {
    /// This library's code, or a scheduler a user registered
    /// (`SchedulerRegistry.register(_:)` in BenchKit): what a comparison judges.
    case library
    /// Another implementation a user could pick instead (Dispatch, OpenCombine,
    /// NIO, AsyncStream): code this project does not change.
    case peer
    /// The least the job can cost, written for the benchmark (an SPSC ring, a
    /// closure queue): code this project's library does not contain.
    case reference

    /// Peers and references run code this project does not change, so their
    /// common change between two runs is the machine's (see `MachineDrift`).
    package var isAnchor: Bool { self != .library }
}

/// A variant of a benchmark: its name in the CSV `variant` column and its role.
///
/// The role is a field; the name is how the CSV has always written it: a
/// library variant under its own name (`fast-path`), a peer or reference
/// under its role's prefix (`peer.nio`, `reference.spsc-ring`). Build one
/// with ``library(_:)``, ``peer(_:)`` or ``reference(_:)``, which keep the
/// two in step.
package struct VariantID: Sendable, Hashable, CustomStringConvertible {
    /// The `variant` column's value.
    package let name: String
    /// What the variant measures, which decides how `compare` reads it.
    package let role: VariantRole

    private init(name: String, role: VariantRole) {
        self.name = name
        self.role = role
    }

    /// A variant of this library's code, written as `name`.
    package static func library(_ name: String) -> VariantID {
        VariantID(name: name, role: .library)
    }

    /// A peer, written as `peer.<name>`.
    package static func peer(_ name: String) -> VariantID {
        VariantID(name: "peer.\(name)", role: .peer)
    }

    /// A reference implementation, written as `reference.<name>`.
    package static func reference(_ name: String) -> VariantID {
        VariantID(name: "reference.\(name)", role: .reference)
    }

    /// The variant a result file names `name`, read back by the prefix the
    /// factories above write; any other name is the library's. A name the
    /// catalogues do not have (in a file of an older run, say) reads the
    /// same way: the prefix decides, not the catalogue.
    package init(reading name: String) {
        if name.hasPrefix("peer.") {
            self.init(name: name, role: .peer)
        } else if name.hasPrefix("reference.") {
            self.init(name: name, role: .reference)
        } else {
            self.init(name: name, role: .library)
        }
    }

    /// This variant with `.<suffix>` appended to its name, same role
    /// (`fast-path.disturbed`).
    package func suffixed(_ suffix: String) -> VariantID {
        VariantID(name: "\(name).\(suffix)", role: role)
    }

    /// The ``name``.
    package var description: String { name }
}
