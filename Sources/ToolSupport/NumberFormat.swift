import Foundation

/// The number styles the tools print: one place, so a CSV, a summary and a
/// comparison never write the same number two ways by accident.
package enum NumberFormat {
    /// For CSV values: integers without a fraction, other values rounded to
    /// 4 decimals with trailing zeros removed; `""` for NaN and infinities.
    package static func fourDecimals(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        let rounded = (value * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            return String(Int64(rounded))
        }
        return withoutTrailingZeros(String(format: "%.4f", rounded))
    }

    /// Swift's shortest round-trip form without a trailing `.0` (`2`, `0.05`,
    /// `2.0001`): for exact counts and option values, which must not be rounded.
    package static func plain(_ number: Double) -> String {
        var text = "\(number)"
        if text.hasSuffix(".0") {
            text.removeLast(2)
        }
        return text
    }

    /// Four significant digits with an SI prefix from 10 000 on (`179.6`,
    /// `12.35k`, `12.35M`), scientific below 0.001, `0` for zero.
    package static func fourSignificantDigits(_ number: Double) -> String {
        let magnitude = abs(number)
        if magnitude == 0 {
            return "0"
        }
        if magnitude < 0.001 {
            return String(format: "%.3e", number)
        }
        let prefixes: [(Double, String)] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e4, "k")]
        for (scale, prefix) in prefixes where magnitude >= scale {
            let scaled = prefix == "k" ? number / 1e3 : number / scale
            return significant(scaled) + prefix
        }
        let text = significant(number)
        // 9999.96 rounds to five digits: show it as 10k like every other value from 10 000 on.
        if let rounded = Double(text), abs(rounded) >= 1e4 {
            return significant(number / 1e3) + "k"
        }
        return text
    }

    /// Short figures for a summary table: `1.23M`, `25.0k`, `42`, `0.50`
    /// (three significant digits at most, integers as integers).
    package static func compact(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1e9 { return String(format: "%.2fG", value / 1e9) }
        if magnitude >= 1e6 { return String(format: "%.2fM", value / 1e6) }
        if magnitude >= 1e4 { return String(format: "%.1fk", value / 1e3) }
        if value == value.rounded() { return String(format: "%.0f", value) }
        return magnitude >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    /// A growth exponent (the slope of a fit on log–log axes) with two
    /// decimals, `0.00` rather than `-0.00`: `0.12`, `-0.40`.
    package static func exponent(_ value: Double) -> String {
        let text = String(format: "%.2f", value)
        return text == "-0.00" ? "0.00" : text
    }

    /// A signed percentage with one decimal, from a fraction: `0.123` → `+12.3%`.
    package static func percentage(_ fraction: Double) -> String {
        String(format: "%+.1f%%", fraction * 100)
    }

    /// A non-negative value with exactly two decimals, rounded half away from
    /// zero (`1.5` → `1.50`): durations in seconds.
    package static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Four significant digits, trailing zeros removed.
    private static func significant(_ number: Double) -> String {
        let digitsBeforePoint = max(1, Int(floor(log10(abs(number)))) + 1)
        let decimals = max(0, 4 - digitsBeforePoint)
        return withoutTrailingZeros(String(format: "%.\(decimals)f", number))
    }

    /// `12.500` → `12.5`, `3.000` → `3`; text without a point is unchanged.
    private static func withoutTrailingZeros(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = text
        while text.last == "0" {
            text.removeLast()
        }
        if text.last == "." {
            text.removeLast()
        }
        return text
    }
}
