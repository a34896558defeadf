import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951: no zlib or gzip header) through zlib, the form Core Data keeps its
/// model cache in. Damaged input is an error, never a crash; inflating stops at a limit so that
/// a hostile stream cannot exhaust memory.
enum RawDeflate {
    /// Why a stream could not be inflated or deflated.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, as a value tests and callers match on.
        enum Reason: Sendable, Equatable {
            /// zlib could not set up a stream (for inflating, or deflating).
            case cannotStart(inflating: Bool)
            /// The inflated data would pass the limit of that many bytes.
            case outputExceeds(limit: Int)
            /// The stream stops in the middle of a block.
            case truncated
            /// zlib found the stream damaged, with its own message when it gave one.
            case damaged(zlibMessage: String?)
            case outOfMemory
            /// Another zlib status.
            case zlibStatus(Int32)
            /// That many bytes follow the end of the stream.
            case trailingBytes(Int)
        }

        var reason: Reason

        var message: String {
            switch reason {
            case .cannotStart(let inflating): "zlib cannot start \(inflating ? "inflating" : "deflating")"
            case .outputExceeds(let limit): "output exceeds \(limit) bytes"
            case .truncated: "the data ends in the middle of a block"
            case .damaged(let zlibMessage): zlibMessage ?? "the data is damaged"
            case .outOfMemory: "zlib ran out of memory"
            case .zlibStatus(let status): "zlib failed with status \(status)"
            case .trailingBytes(let count): "\(count) bytes follow the end of the stream"
            }
        }

        var description: String { "DEFLATE data: \(message)" }
    }

    /// The inflated bytes of `data`; fails once the output would pass `limit` bytes, and when
    /// the stream is damaged, ends early, or is followed by more data.
    static func inflate(_ data: Data, limit: Int = 256 << 20) throws(Failure) -> Data {
        var stream = z_stream()
        guard strata_inflate_init_raw(&stream) == Z_OK else { throw Failure(reason: .cannotStart(inflating: true)) }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        // zlib writes into a fixed buffer; its contents are appended after each call, so the
        // output never grows past the limit by more than one buffer before being refused.
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let bufferSize = buffer.count
        var status = Z_OK
        return try input.withUnsafeMutableBufferPointer { (inputBytes) throws(Failure) -> Data in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = uInt(inputBytes.count)
            while status != Z_STREAM_END {
                status = buffer.withUnsafeMutableBufferPointer { outputBytes in
                    stream.next_out = outputBytes.baseAddress
                    stream.avail_out = uInt(bufferSize)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = bufferSize - Int(stream.avail_out)
                guard output.count + produced <= limit else { throw Failure(reason: .outputExceeds(limit: limit)) }
                output.append(contentsOf: buffer[0..<produced])
                switch status {
                case Z_OK, Z_STREAM_END: continue
                case Z_BUF_ERROR where stream.avail_in == 0: throw Failure(reason: .truncated)
                case Z_DATA_ERROR: throw Failure(reason: .damaged(zlibMessage: stream.msg.map { String(cString: $0) }))
                case Z_MEM_ERROR: throw Failure(reason: .outOfMemory)
                default: throw Failure(reason: .zlibStatus(status))
                }
            }
            guard stream.avail_in == 0 else { throw Failure(reason: .trailingBytes(Int(stream.avail_in))) }
            return output
        }
    }

    /// `data` deflated at zlib's default level (6), as Core Data deflates its model cache:
    /// re-deflating the inflated cache of eight of the ten fixture stores that have one gives
    /// their stored blob byte for byte (the other two differ by a few bytes in either size).
    static func deflate(_ data: Data, level: Int32 = 6) throws(Failure) -> Data {
        var stream = z_stream()
        guard strata_deflate_init_raw(&stream, level) == Z_OK else { throw Failure(reason: .cannotStart(inflating: false)) }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        let capacity = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: capacity)
        let status = input.withUnsafeMutableBufferPointer { inputBytes in
            output.withUnsafeMutableBufferPointer { outputBytes in
                stream.next_in = inputBytes.baseAddress
                stream.avail_in = uInt(inputBytes.count)
                stream.next_out = outputBytes.baseAddress
                stream.avail_out = uInt(capacity)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound is an upper bound for one Z_FINISH call, so anything but the stream's end
        // is zlib failing, not the buffer being short.
        guard status == Z_STREAM_END else { throw Failure(reason: .zlibStatus(status)) }
        return Data(output[0..<Int(stream.total_out)])
    }
}
