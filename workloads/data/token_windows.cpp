#include "workloads/data/token_windows.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/config/errors.h"
#include "workloads/data/seed_mix.h"
#include "workloads/data/synthetic_tokens.h"

namespace gpubench {
namespace {


// Where the tokens live: a mapped file or a vector, of uint16 or uint32 ids. check()
// throws if they went bad.
template <class Token>
class TokenStore {
 public:
  virtual ~TokenStore() = default;
  virtual const Token* data() const = 0;
  virtual std::int64_t count() const = 0;
  virtual void check() const {}
  virtual std::string describe() const = 0;
};

class MemoryTokens final : public TokenStore<std::uint32_t> {
 public:
  explicit MemoryTokens(std::vector<std::uint32_t> tokens) : tokens_(std::move(tokens)) {}
  const std::uint32_t* data() const override { return tokens_.data(); }
  std::int64_t count() const override { return static_cast<std::int64_t>(tokens_.size()); }
  std::string describe() const override { return "synthetic"; }

 private:
  std::vector<std::uint32_t> tokens_;
};

template <class Token>
class MappedTokenFile final : public TokenStore<Token> {
 public:
  MappedTokenFile(std::string path, const std::string& label) : path_(std::move(path)) {
    const std::string what = label + "='" + path_ + "'";
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: a FIFO must not hang the open
    if (fd_ < 0) throw UsageError(what + " cannot be opened: " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
      ::close(fd_);
      throw UsageError(what + " is not a regular file: expected a token file (" + token_kind() + ")");
    }
    bytes_ = static_cast<std::int64_t>(info.st_size);
    if (bytes_ % static_cast<std::int64_t>(sizeof(Token)) != 0) {
      ::close(fd_);
      throw UsageError(what + " has " + std::to_string(bytes_) + " bytes, not a multiple of " +
                       std::to_string(sizeof(Token)) + ": expected " + token_kind());
    }
    if (bytes_ > 0) map_ = ::mmap(nullptr, static_cast<std::size_t>(bytes_), PROT_READ, MAP_SHARED, fd_, 0);
    if (map_ == MAP_FAILED) {
      ::close(fd_);
      throw UsageError(what + " cannot be memory-mapped: " + std::strerror(errno));
    }
  }
  ~MappedTokenFile() override {
    if (map_ != nullptr && map_ != MAP_FAILED) ::munmap(map_, static_cast<std::size_t>(bytes_));
    ::close(fd_);
  }
  static std::string token_kind() {
    return sizeof(Token) == 2 ? "uint16 token ids (2 bytes each), as nanoGPT's train.bin"
                              : "uint32 token ids (4 bytes each), for a vocabulary over 65536";
  }
  const Token* data() const override { return static_cast<const Token*>(map_); }
  std::int64_t count() const override { return bytes_ / static_cast<std::int64_t>(sizeof(Token)); }
  // A read past a truncated mapping is SIGBUS: look before each batch (a file cut between
  // this look and the read still kills the config's process, and its row says so).
  void check() const override {
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || static_cast<std::int64_t>(info.st_size) < bytes_)
      throw std::runtime_error("token file '" + path_ + "' shrank during the run (was " + std::to_string(bytes_) +
                               " bytes, now " + std::to_string(info.st_size) + ")");
  }
  std::string describe() const override { return "token-file:" + path_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::int64_t bytes_ = 0;
  void* map_ = nullptr;
};

template <class Token>
class TokenWindowReader final : public SampleReader {
 public:
  TokenWindowReader(std::shared_ptr<const TokenStore<Token>> store, const TokenWindowOptions& options)
      : store_(std::move(store)), options_(options), starts_(store_->count() - (options.context + 1) + 1) {}

  torch::data::Example<> read_batch(c10::ArrayRef<std::size_t> indices) const override {
    store_->check();
    const auto count = static_cast<std::int64_t>(indices.size());
    auto inputs = torch::empty({count, options_.context}, torch::kInt64);
    auto targets = torch::empty({count, options_.context}, torch::kInt64);
    for (std::int64_t b = 0; b < count; ++b) {
      const std::int64_t start = window_start(indices[static_cast<std::size_t>(b)]);
      const Token* window = store_->data() + start;
      auto* in = inputs[b].data_ptr<std::int64_t>();
      auto* out = targets[b].data_ptr<std::int64_t>();
      for (std::int64_t t = 0; t <= options_.context; ++t) {
        if (window[t] >= options_.vocab)
          throw std::runtime_error(store_->describe() + ": token id " + std::to_string(window[t]) + " at token " +
                                   std::to_string(start + t) + " is not below the vocabulary (" +
                                   std::to_string(options_.vocab) + ")");
        if (t < options_.context) in[t] = window[t];
        if (t > 0) out[t - 1] = window[t];
      }
    }
    return {inputs, targets};
  }

  std::size_t size() const override { return static_cast<std::size_t>(options_.windows); }

  std::string source() const override {
    const std::string what = store_->describe() == "synthetic" ? "synthetic(seed=" + std::to_string(options_.seed) + ")"
                                                              : store_->describe();
    return what + " (" + std::to_string(options_.windows) + " random windows of " + std::to_string(options_.context + 1) +
           " tokens from " + std::to_string(store_->count()) + ")";
  }

 private:
  std::int64_t window_start(std::size_t index) const {
    return static_cast<std::int64_t>(seed_mix(options_.seed ^ seed_mix(index)) % static_cast<std::uint64_t>(starts_));
  }

  std::shared_ptr<const TokenStore<Token>> store_;
  TokenWindowOptions options_;
  std::int64_t starts_;  // positions a window can start at
};

// The first id >= vocab, scanned in chunks on every core; -1 when there is none.
template <class Token>
std::int64_t first_id_out_of_range(const Token* tokens, std::int64_t count, std::int64_t vocab) {
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  const std::int64_t chunk = (count + threads - 1) / threads;
  std::vector<std::int64_t> found(threads, -1);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::int64_t begin = std::min<std::int64_t>(count, t * chunk), end = std::min<std::int64_t>(count, begin + chunk);
      const auto* bad = std::find_if(tokens + begin, tokens + end, [vocab](Token id) { return id >= vocab; });
      if (bad != tokens + end) found[t] = bad - tokens;
    });
  for (auto& thread : pool) thread.join();
  for (const std::int64_t position : found)
    if (position >= 0) return position;
  return -1;
}

// Why a 4-byte id is out of range, where the likely cause is a nanoGPT uint16 file read
// under a vocabulary that needs 4 bytes an id: its two halves are the uint16 ids it would be.
std::string wide_id_reason(std::uint64_t id, std::size_t token_bytes, std::int64_t vocab) {
  if (token_bytes != 4) return "";
  return "; ids are read as uint32 (4 bytes each) because the vocabulary (" + std::to_string(vocab) +
         ") is above 65536, and this one reads as the uint16 ids " + std::to_string(id & 0xFFFF) + " and " +
         std::to_string(id >> 16) + ": a uint16 file (nanoGPT's train.bin) cannot hold such a vocabulary, expected "
         "uint32 ids (numpy's astype(np.uint32).tofile)";
}

template <class Token>
void check_length(const TokenStore<Token>& store, const TokenWindowOptions& options, const std::string& what) {
  if (store.count() < options.context + 1)
    throw UsageError(what + " holds " + std::to_string(store.count()) + " tokens, fewer than one window of " +
                     std::to_string(options.context + 1) + " (context + 1)");
}

template <class Token>
std::shared_ptr<const SampleReader> open_token_file_of(const std::string& path, const TokenWindowOptions& options) {
  auto file = std::make_shared<MappedTokenFile<Token>>(path, options.data_flag);
  const std::string what = options.data_flag + "='" + path + "'";
  check_length(*file, options, what);
  if (options.full_check)
    if (const std::int64_t bad = first_id_out_of_range(file->data(), file->count(), options.vocab); bad >= 0)
      throw UsageError(what + " has token id " + std::to_string(file->data()[bad]) + " at token " + std::to_string(bad) +
                       " (byte offset " + std::to_string(bad * static_cast<std::int64_t>(sizeof(Token))) +
                       "): expected ids below the vocabulary (" + std::to_string(options.vocab) + ")" +
                       wide_id_reason(static_cast<std::uint64_t>(file->data()[bad]), sizeof(Token), options.vocab));
  return std::make_shared<TokenWindowReader<Token>>(std::move(file), options);
}

}  // namespace

std::shared_ptr<const SampleReader> open_token_file(const std::string& path, const TokenWindowOptions& options) {
  if (token_bytes_for(options.vocab) == 4) return open_token_file_of<std::uint32_t>(path, options);
  return open_token_file_of<std::uint16_t>(path, options);
}

std::shared_ptr<const SampleReader> synthetic_token_windows(std::vector<std::uint32_t> tokens,
                                                            const TokenWindowOptions& options) {
  std::shared_ptr<const TokenStore<std::uint32_t>> store = std::make_shared<MemoryTokens>(std::move(tokens));
  check_length(*store, options, "the synthetic token stream");
  return std::make_shared<TokenWindowReader<std::uint32_t>>(std::move(store), options);
}

std::shared_ptr<const SampleReader> token_lm_samples(const std::string& data_path, const TokenWindowOptions& options,
                                                     std::int64_t synthetic_vocab) {
  if (!data_path.empty()) return open_token_file(data_path, options);
  // Enough tokens for every window to start anywhere in the dataset's span.
  const std::int64_t length = options.windows * options.context + options.context + 1;
  return synthetic_token_windows(make_skewed_markov_tokens(length, synthetic_vocab, options.seed), options);
}

}  // namespace gpubench
