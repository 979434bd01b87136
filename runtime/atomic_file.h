// runtime/atomic_file.h - crash-safe whole-file writes (temp + fsync + rename) and located reads.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace fluidc::rt {

/// Replaces the file at `path` with whatever `writer` streams into the
/// std::ostream it is given, so that `path` is at every moment either the
/// old file or the complete new one - never a half-written mix, even if the
/// process is killed or the machine loses power.
///
/// A symlinked `path` is written through (see resolve_write_target); stale
/// temp files of killed earlier writes are removed first.
///
/// The bytes go to `path + ".tmp.<pid>"` in the same directory; after
/// `writer` returns the temp file is flushed, fsync'ed, renamed over `path`,
/// and the directory is fsync'ed so the rename itself is durable.
///
/// On any failure (cannot create the temp file, write error such as a full
/// disk, fsync/rename failure) the temp file is removed and an Error naming
/// the path and the OS reason is thrown. If `writer` itself throws, the temp
/// file is removed and that exception propagates unchanged; `path` is left
/// as it was. Two threads of one process must not write the same `path` at
/// the same time (they would share the temp name).
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& writer);

/// The file a write to `path` must replace: `path` itself, or, when `path`
/// is a symbolic link (or a chain of them), the file it points to, so the
/// link survives and its target is updated as the user meant. Throws Error
/// when that file exists and is not a regular file (a directory, a device,
/// a FIFO: renaming over it would replace it with a regular file), or when
/// the links form a loop.
std::string resolve_write_target(const std::string& path);

/// Checks, before long work starts, that write_file_atomically(path, ...)
/// can succeed later: the target is a regular file or absent, and its
/// directory exists and is writable. Throws Error saying what is wrong.
void check_writable_target(const std::string& path);

/// Removes temp files `<name>.tmp.<pid>` beside `path` left by writes whose
/// process no longer exists (killed mid-save). Called by every write; safe
/// while other processes write other files in the same directory.
void remove_stale_temp_files(const std::string& path);

/// Convenience overload: atomically replaces `path` with exactly `bytes`.
void write_file_atomically(const std::string& path, std::string_view bytes);

/// Returns the whole content of `path` as bytes. Throws Error
/// "<path>: cannot open: <reason>" when the file is missing, unreadable or a
/// directory, and "<path>: read failed: <reason>" on an I/O error.
std::string read_file(const std::string& path);

}  // namespace fluidc::rt
