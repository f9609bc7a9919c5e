/// What one callgrind profile (one counted region) says: its instructions,
/// and how many of them the Swift runtime spent finding type metadata and
/// witness tables ("type lookups").
///
/// Why the lookups are taken apart: unspecialised generic code asks the
/// runtime for the metadata of types such as `Optional<Item<T>>` on every
/// call, and the runtime searches hash maps keyed by the addresses of type
/// descriptors. How long each search probes depends on where the linker
/// put those descriptors, so a change anywhere in the binary (a new
/// benchmark, a renamed function) moves their instructions: two builds
/// that differ only in code the counted region never runs count a
/// workload's instructions differently, the whole difference inside the
/// runtime's metadata and tuple caches (docs/InstructionCounts.md has the
/// figures). The number of lookups, on the other hand,
/// is decided by the code alone. So the gate counts the instructions
/// outside the lookups, and the lookups by number; what they cost in this
/// binary is shown, not judged.
package struct CallgrindProfile: Sendable, Equatable {
    /// Every instruction of the region (the profile's `summary:`/`totals:`).
    let total: UInt64
    /// Instructions inside type lookups, called from code that is not itself
    /// a type lookup (so a lookup inside a lookup is counted once).
    let lookupInstructions: UInt64
    /// Calls into type lookups from code that is not itself a type lookup.
    let lookups: UInt64

    /// Instructions outside type lookups: the code's own work.
    var ownInstructions: UInt64 { total - min(lookupInstructions, total) }

    init(total: UInt64, lookupInstructions: UInt64, lookups: UInt64) {
        self.total = total
        self.lookupInstructions = lookupInstructions
        self.lookups = lookups
    }

    /// Reads a profile in callgrind's format (name compression, one position
    /// column or more, `Ir` as the first event); nil when it has no total.
    ///
    /// A call's inclusive cost is the cost line after its `calls=` line; the
    /// calls from a function that is not a type lookup to one that is are
    /// summed. See ``isTypeLookup(_:)`` for which functions are.
    static func parse(_ text: String) -> CallgrindProfile? {
        var total: UInt64?
        var positionColumns = 1
        var names: [Substring: Bool] = [:]  // compressed id -> is a type lookup
        var callerIsLookup = false
        var calleeIsLookup = false
        var pendingCalls: UInt64?
        var lookupInstructions: UInt64 = 0
        var lookups: UInt64 = 0

        /// Resolves `(id) name` or `(id)`, remembering names by id.
        func isLookup(_ value: Substring) -> Bool {
            guard value.hasPrefix("("), let close = value.firstIndex(of: ")") else {
                return isTypeLookup(String(value))
            }
            let id = value[value.startIndex...close]
            let rest = value[value.index(after: close)...].drop(while: { $0 == " " })
            if !rest.isEmpty {
                let lookup = isTypeLookup(String(rest))
                names[id] = lookup
                return lookup
            }
            return names[id] ?? false
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let calls = pendingCalls {
                // The cost line of the call just announced.
                pendingCalls = nil
                if calleeIsLookup && !callerIsLookup {
                    let fields = line.split(separator: " ")
                    let cost = fields.count > positionColumns ? UInt64(fields[positionColumns]) ?? 0 : 0
                    lookupInstructions += cost
                    lookups += calls
                }
                continue
            }
            if line.hasPrefix("fn=") {
                callerIsLookup = isLookup(line.dropFirst(3))
            } else if line.hasPrefix("cfn=") {
                calleeIsLookup = isLookup(line.dropFirst(4))
            } else if line.hasPrefix("calls=") {
                let count = line.dropFirst(6).split(separator: " ").first.flatMap { UInt64($0) } ?? 0
                pendingCalls = count
            } else if line.hasPrefix("positions:") {
                positionColumns = max(1, line.dropFirst(10).split(separator: " ").count)
            } else if line.hasPrefix("summary:") || line.hasPrefix("totals:") {
                let value = line.drop(while: { $0 != ":" }).dropFirst().split(separator: " ").first
                total = total ?? value.flatMap { UInt64($0) }
            }
        }
        guard let total else { return nil }
        return CallgrindProfile(total: total, lookupInstructions: lookupInstructions, lookups: lookups)
    }

    /// The Swift runtime's entry points that find type metadata, witness
    /// tables and conformances in its caches, and Swift's metadata accessors
    /// (mangled names ending in `Ma`), which call them. `name` is as
    /// callgrind prints it: a C++ runtime function may carry its signature.
    static func isTypeLookup(_ name: String) -> Bool {
        let base = name.prefix(while: { $0 != "(" && $0 != " " })
        if base.hasPrefix("$s") {
            return base.hasSuffix("Ma") || base.hasSuffix("MaTm")
        }
        return runtimeLookupPrefixes.contains { base.hasPrefix($0) }
    }

    /// See ``isTypeLookup(_:)``.
    static let runtimeLookupPrefixes = [
        "swift_getGenericMetadata", "_swift_getGenericMetadata",
        "swift_getCanonicalPrespecializedGenericMetadata", "swift_getCanonicalSpecializedMetadata",
        "__swift_instantiateGenericMetadata", "__swift_instantiateCanonicalPrespecializedGenericMetadata",
        "__swift_instantiateConcreteTypeFromMangledName", "swift_getTypeByMangledName",
        "swift_getTupleTypeMetadata", "swift_getFunctionTypeMetadata", "swift_getExistentialTypeMetadata",
        "swift_getExistentialMetatypeMetadata", "swift_getMetatypeMetadata", "swift_getOpaqueTypeMetadata",
        "swift_getOpaqueTypeConformance", "swift_getWitnessTable", "swift_getAssociatedTypeWitness",
        "swift_getAssociatedConformanceWitness", "swift_conformsToProtocol",
    ]
}
