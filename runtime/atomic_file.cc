// runtime/atomic_file.cc - crash-safe whole-file writes (temp + fsync + rename) and located reads.
#include "runtime/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <streambuf>
#include <vector>

#include "runtime/error.h"

namespace fluidc::rt {
namespace {

std::string os_reason(int err) { return std::strerror(err); }

/// Writes `n` bytes to `fd`, retrying on EINTR and short writes.
/// Returns 0 on success, else the errno of the failure.
int write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

/// A buffered std::streambuf over a POSIX file descriptor that remembers the
/// first write error (errno) instead of losing it in a stream state bit.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd), buf_(kBufSize) {
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  int error() const { return err_; }
  /// Pushes buffered bytes to the kernel; false (and error() set) on failure.
  bool drain() {
    if (err_) return false;
    size_t n = static_cast<size_t>(pptr() - pbase());
    if (n) err_ = write_all(fd_, pbase(), n);
    setp(buf_.data(), buf_.data() + buf_.size());
    return err_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (err_) return 0;
    if (n >= static_cast<std::streamsize>(buf_.size())) {
      // Large blocks (tensor data) skip the copy into our buffer.
      if (!drain()) return 0;
      err_ = write_all(fd_, s, static_cast<size_t>(n));
      return err_ ? 0 : n;
    }
    return std::streambuf::xsputn(s, n);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr size_t kBufSize = 1 << 16;
  int fd_;
  int err_ = 0;
  std::vector<char> buf_;
};

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

/// Makes a completed rename durable. Best effort: some file systems refuse
/// fsync on a directory, and the new file is already complete and in place.
void sync_dir(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  while (::fsync(dfd) != 0 && errno == EINTR) {
  }
  ::close(dfd);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// True when `text` is a whole positive decimal number that fits a pid.
bool parse_pid(const std::string& text, pid_t* pid) {
  if (text.empty() || text.size() > 9) return false;
  long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pid = static_cast<pid_t>(v);
  return v > 0;
}

}  // namespace

std::string resolve_write_target(const std::string& path) {
  std::string cur = path;
  // Linux itself gives up after 40 links.
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(cur.c_str(), &st) != 0) return cur;  // absent: created by the write
    if (S_ISREG(st.st_mode)) return cur;
    if (!S_ISLNK(st.st_mode))
      fail(path + ": exists and is not a regular file" + (cur == path ? "" : " (through the link, " + cur + ")") +
           "; refusing to replace it");
    std::vector<char> buf(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    ssize_t n = ::readlink(cur.c_str(), buf.data(), buf.size());
    if (n < 0 || static_cast<size_t>(n) >= buf.size()) fail(path + ": cannot read the symbolic link " + cur);
    std::string target(buf.data(), static_cast<size_t>(n));
    cur = target.empty() || target[0] == '/' ? target : dir_of(cur) + "/" + target;
  }
  fail(path + ": too many levels of symbolic links");
}

void check_writable_target(const std::string& path) {
  const std::string target = resolve_write_target(path);
  const std::string dir = dir_of(target);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(path + ": cannot write: directory " + dir + " does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(path + ": cannot write: directory " + dir + " is not writable: " + os_reason(errno));
  if (::access(target.c_str(), F_OK) == 0 && ::access(target.c_str(), W_OK) != 0)
    fail(path + ": cannot write: " + os_reason(errno));
}

void remove_stale_temp_files(const std::string& path) {
  const std::string dir = dir_of(path), prefix = base_of(path) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    pid_t pid;
    if (name.rfind(prefix, 0) != 0 || !parse_pid(name.substr(prefix.size()), &pid)) continue;
    // Our own pid's temp is ours to overwrite; a live process's is its own.
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

void write_file_atomically(const std::string& user_path,
                           const std::function<void(std::ostream&)>& writer) {
  const std::string path = resolve_write_target(user_path);
  remove_stale_temp_files(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    fail(path + ": cannot write: cannot create temporary file " + tmp + ": " + os_reason(e));
  }
  // From here on every exit path must close `fd` and, unless the rename
  // happened, unlink `tmp`.
  auto abandon = [&](const std::string& why) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    fail(path + ": cannot write: " + why);
  };
  {
    FdStreamBuf buf(fd);
    std::ostream os(&buf);
    try {
      writer(os);
    } catch (...) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw;
    }
    os.flush();
    if (!buf.drain() || !os.good()) {
      int e = buf.error();
      abandon(e ? "write to " + tmp + " failed: " + os_reason(e)
                : "write to " + tmp + " failed (the writer left the stream in an error state)");
    }
  }
  int rc;
  while ((rc = ::fsync(fd)) != 0 && errno == EINTR) {
  }
  if (rc != 0) abandon("fsync of " + tmp + " failed: " + os_reason(errno));
  int fd_copy = fd;
  fd = -1;
  if (::close(fd_copy) != 0) abandon("close of " + tmp + " failed: " + os_reason(errno));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    abandon("rename of " + tmp + " over it failed: " + os_reason(errno));
  sync_dir(dir_of(path));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  write_file_atomically(path, [bytes](std::ostream& os) {
    os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  });
}

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    fail(path + ": cannot open: " + os_reason(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    fail(path + ": cannot open: " + os_reason(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail(path + ": cannot open: " + os_reason(EISDIR));
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, chunk, sizeof chunk);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      fail(path + ": read failed: " + os_reason(e));
    }
    if (r == 0) break;
    out.append(chunk, static_cast<size_t>(r));
  }
  ::close(fd);
  return out;
}

}  // namespace fluidc::rt
