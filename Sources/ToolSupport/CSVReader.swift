/// One CSV record with the physical line it starts on.
package struct CSVRecord: Sendable, Equatable {
    /// 1-based line of the record's first character (quoted fields may span lines).
    package let line: Int
    /// The record's fields, unquoted.
    package let fields: [String]

    /// Creates a record of `fields` starting on `line`.
    init(line: Int, fields: [String]) {
        self.line = line
        self.fields = fields
    }
}

/// Text that is not valid CSV, or a record that does not fit its header.
/// Only this module's readers make one (with the memberwise initializer).
package struct CSVReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line where the problem starts.
    package let line: Int
    /// What is wrong and how to fix it.
    package let message: String

    /// `line N: message`.
    package var description: String {
        "line \(line): \(message)"
    }
}

/// Splits CSV text into records following RFC 4180: fields separated by
/// commas, records by CRLF, LF or CR, a field in double quotes may contain
/// commas, line breaks and doubled quotes (`""`).
///
/// Strict on purpose: a stray quote or an unterminated quoted field is an
/// error naming the line, because a lenient reading of a broken file would
/// hand the wrong numbers on silently. Blank lines are skipped.
package enum CSVReader {
    /// The records of `text`, in order; throws on the first malformed one.
    package static func records(in text: String) throws(CSVReadError) -> [CSVRecord] {
        let bytes = Array(text.utf8)
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        let carriageReturn = UInt8(ascii: "\r")
        let lineFeed = UInt8(ascii: "\n")

        var records: [CSVRecord] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var index = 0

        func endRecord() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            let isBlank = fields.count == 1 && fields[0].allSatisfy(\.isWhitespace)
            if !isBlank {
                records.append(CSVRecord(line: recordLine, fields: fields))
            }
            fields.removeAll(keepingCapacity: true)
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote && field.isEmpty {
                // Quoted field: read to the closing quote.
                let openingLine = line
                index += 1
                var closed = false
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == quote {
                        if index + 1 < bytes.count && bytes[index + 1] == quote {
                            field.append(quote)
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    if inner == lineFeed {
                        line += 1
                    }
                    field.append(inner)
                    index += 1
                }
                guard closed else {
                    throw CSVReadError(line: openingLine, message: "not a valid CSV file: quoted field is never closed")
                }
                if index < bytes.count {
                    let next = bytes[index]
                    guard next == comma || next == lineFeed || next == carriageReturn else {
                        throw CSVReadError(
                            line: line,
                            message: "not a valid CSV file: unexpected character after a closing quote "
                                + "(a quote inside a field must be doubled)")
                    }
                }
                continue
            }
            switch byte {
            case comma:
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                index += 1
            case carriageReturn where index + 1 < bytes.count && bytes[index + 1] == lineFeed:
                endRecord()
                index += 2
                line += 1
                recordLine = line
            case lineFeed, carriageReturn:
                endRecord()
                index += 1
                line += 1
                recordLine = line
            case quote:
                throw CSVReadError(
                    line: line,
                    message: "not a valid CSV file: a quote inside an unquoted field "
                        + "(quote the whole field and double the quote)")
            default:
                // Unquoted bytes: taken up to the next separator or quote at
                // once, not appended one by one (reading the committed runs
                // spends most of its time here); a quote there is the case above.
                let start = index
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    if next == comma || next == carriageReturn || next == lineFeed || next == quote { break }
                    index += 1
                }
                field.append(contentsOf: bytes[start..<index])
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            endRecord()
        }
        return records
    }
}
