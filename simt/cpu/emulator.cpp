// The fiber emulator. One `emulator` per OS thread owns a pool of fibers (one per GPU thread of the largest block
// seen), the block's shared arena, the hazard shadow and the ready queue. The scheduler runs on the OS thread's own
// stack; a fiber runs until it parks (barrier, warp collective) or finishes, then switches back. The last arrival
// at a warp collective completes it for the whole warp and keeps running; the last arrival at a barrier releases
// it and yields, so that after every barrier the policy alone decides who runs first.
#include "simt/cpu/emulator.h"

#include <boost/context/detail/fcontext.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#if defined(TP_ASAN) || defined(__SANITIZE_ADDRESS__)
  #include <sanitizer/asan_interface.h>
  #include <sanitizer/common_interface_defs.h>
  #define TP_FIBER_ASAN 1
#else
  #define TP_FIBER_ASAN 0
#endif

namespace tp::cpu {

namespace detail {
thread_local constinit thread_state* current = nullptr;
thread_local constinit bool hazards_on = false;
}  // namespace detail

const char* to_string(policy p) {
  switch (p) {
    case policy::in_order: return "in_order";
    case policy::reverse: return "reverse";
    case policy::random: return "random";
    case policy::adversarial: return "adversarial";
  }
  return "?";
}

const char* to_string(hazard_kind k) {
  switch (k) {
    case hazard_kind::raw: return "RAW";
    case hazard_kind::war: return "WAR";
    case hazard_kind::waw: return "WAW";
  }
  return "?";
}

std::string host_description() {
  std::string model = "an unknown CPU";
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "model name", 10) == 0) {
        const char* colon = std::strchr(line, ':');
        if (!colon) continue;
        std::string m(colon + 1);
        const auto first = m.find_first_not_of(" \t"), last = m.find_last_not_of(" \t\r\n");
        if (first != std::string::npos) model = m.substr(first, last - first + 1);
        break;
      }
    std::fclose(f);
  }
  const long threads = sysconf(_SC_NPROCESSORS_ONLN);
  return "CPU fiber emulator on " + model + " (" + std::to_string(threads > 0 ? threads : 1) + " hardware threads)";
}

std::string describe(const hazard_pair& h) {
  auto site = [](const hazard_site& s) {
    return std::string(s.write ? "write" : "read") + " by warp " + std::to_string(s.warp) + " lane " +
           std::to_string(s.lane) + " at " + tp::describe(s.where);
  };
  return std::string(to_string(h.kind)) + " hazard on shared byte " + std::to_string(h.offset) + " (block " +
         std::to_string(h.block) + "): " + site(h.earlier) + ", then " + site(h.later) + " in the same barrier epoch";
}

void shadow::reset(void* data, std::size_t elem_size, std::size_t n, elem_state initial) {
  base = static_cast<unsigned char*>(data);
  elem_bytes = elem_size;
  count = n;
  state.assign(n, initial);
  unwritten = {};
}

void shadow::set_all(elem_state s) {
  std::fill(state.begin(), state.end(), s);
  unwritten = {};
}

namespace {

namespace fctx = boost::context::detail;

enum class park_kind : std::uint8_t { none, barrier, shfl, allgather, exited };

const char* park_name(park_kind k) {
  switch (k) {
    case park_kind::none: return "running";
    case park_kind::barrier: return "sync_threads";
    case park_kind::shfl: return "shfl";
    case park_kind::allgather: return "warp_allgather";
    case park_kind::exited: return "exited";
  }
  return "?";
}

bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() && std::strcmp(a.file_name(), b.file_name()) == 0;
}

std::string site_text(const std::source_location& w) { return tp::describe(w); }

struct fiber {
  thread_state ts;
  fctx::fcontext_t ctx = nullptr;   // where this fiber resumes
  unsigned char* map = nullptr;     // mapping: guard page(s) then the usable stack
  std::size_t map_bytes = 0, guard_bytes = 0;
  std::size_t colour = 0;           // bytes left unused at the stack top (cache-set spreading)
  bool fresh = true;                // needs make_fcontext (first use, or abandoned by an aborted launch)
  bool runnable = false;
  park_kind parked = park_kind::none;
  std::source_location where;
  // collective operands, valid while parked (they point into this fiber's stack)
  const void* mine = nullptr;
  void* out = nullptr;
  std::size_t bytes = 0;
  std::uint32_t word = 0;
  unsigned src = 0;
  std::uint32_t* result = nullptr;
  std::exception_ptr error;
  void* asan_fake_stack = nullptr;

  unsigned char* stack_lo() const { return map + guard_bytes; }
  std::size_t stack_size() const { return map_bytes - guard_bytes; }
  ~fiber() {
    if (map) munmap(map, map_bytes);
  }
};

struct warp_sync {
  unsigned lanes = 0, arrived = 0, exited = 0;
};

// Byte-granular hazard shadow of the shared arena. Epochs are unique across blocks and launches (never reset), so
// a stale cell never matches the current epoch and the shadow needs no clearing.
struct hazard_cell {
  std::uint32_t w_epoch = 0;
  std::uint16_t w_warp = 0, w_lane = 0;
  std::uint32_t r_epoch = 0;
  std::uint16_t r_warp = 0, r_lane = 0;    // first reader this epoch
  std::uint16_t r2_warp = 0, r2_lane = 0;  // a reader of another warp, when r_multi
  bool r_multi = false;
  std::source_location w_where, r_where, r2_where;
};

class ready_ring {
 public:
  void reset(unsigned cap) {
    buf_.assign(cap + 1, 0);
    head_ = tail_ = 0;
  }
  bool empty() const { return head_ == tail_; }
  unsigned size() const { return unsigned((tail_ + buf_.size() - head_) % buf_.size()); }
  void push_back(unsigned v) {
    buf_[tail_] = v;
    tail_ = next(tail_);
  }
  void push_front(unsigned v) {
    head_ = head_ == 0 ? unsigned(buf_.size() - 1) : head_ - 1;
    buf_[head_] = v;
  }
  unsigned pop_front() {
    unsigned v = buf_[head_];
    head_ = next(head_);
    return v;
  }
  unsigned pop_at(unsigned k) {  // k-th from the front
    unsigned pos = unsigned((head_ + k) % buf_.size());
    std::swap(buf_[pos], buf_[head_]);
    return pop_front();
  }

 private:
  unsigned next(unsigned i) const { return i + 1 == buf_.size() ? 0 : i + 1; }
  std::vector<unsigned> buf_;
  unsigned head_ = 0, tail_ = 0;
};

struct abort_launch {
  std::string message;
};

// A GPU block's shared memory: dynamic part first (dims.dyn_smem), then TP_SHARED allocations. H100/H200 allow
// 227 KiB per block; the static part is capped at that.
constexpr std::size_t static_smem_cap = 227 * 1024;
constexpr unsigned char smem_poison = 0xFF;  // NaN for f32/f16/bf16/fp8-e4m3, all-ones for integers

class emulator;
thread_local emulator* running_emulator = nullptr;

void fiber_main(fctx::transfer_t t);

class emulator {
 public:
  run_options opts;
  hazard_report hazards;

  ~emulator() = default;

  void run(unsigned grid, unsigned block, std::size_t dyn_smem, kernel_body body, void* packed, const char* name);

  // --- called on fibers ---
  fiber* running() { return running_; }
  [[gnu::always_inline]] void park(fiber* f) {
    f->runnable = false;
    switch_away(f);
  }
  // The running fiber parks or finished: switch straight to the next ready fiber (one switch, not two through the
  // scheduler); to the scheduler only when nothing is ready or something must be reported.
  [[gnu::always_inline]] void switch_away(fiber* from) {
    fiber* to = (from->error || !fatal_.empty()) ? nullptr : next_fiber();
    if (to == from) return;
    fctx::fcontext_t target = to ? to->ctx : sched_ctx_;
#if TP_FIBER_ASAN
    if (to)
      __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_lo(), to->stack_size());
    else
      __sanitizer_start_switch_fiber(&from->asan_fake_stack, main_stack_lo_, main_stack_size_);
#endif
    fctx::transfer_t t = fctx::jump_fcontext(target, from);
#if TP_FIBER_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake_stack, nullptr, nullptr);
#endif
    note_origin(t);
  }
  // Whoever switched to us passed itself (null: the scheduler); its context is where it resumes later.
  [[gnu::always_inline]] void note_origin(fctx::transfer_t t) {
    if (t.data)
      static_cast<fiber*>(t.data)->ctx = t.fctx;
    else
      sched_ctx_ = t.fctx;
  }
  void on_first_entry(fctx::transfer_t t) {
#if TP_FIBER_ASAN
    const void* lo = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(nullptr, &lo, &size);
    if (!t.data) main_stack_lo_ = lo, main_stack_size_ = size;
#endif
    note_origin(t);
  }
  // Pops the next fiber by policy and makes it the running one; null when none is ready.
  fiber* next_fiber() {
    if (ready_.empty()) {
      running_ = nullptr;
      return nullptr;
    }
    fiber* f = fibers_[pick()].get();
    if (f->fresh) {
      f->fresh = false;
#if TP_FIBER_ASAN
      __asan_unpoison_memory_region(f->stack_lo(), f->stack_size());
#endif
      // Stack colouring: page-aligned stacks would put every fiber's hot top frames in the same cache sets.
      f->ctx = fctx::make_fcontext(f->stack_lo() + f->stack_size() - f->colour, f->stack_size() - f->colour, fiber_main);
    }
    running_ = f;
    f->runnable = true;
    f->parked = park_kind::none;
    detail::current = &f->ts;
    return f;
  }
  void run_body() { body_(packed_); }
  void on_exit(fiber* f);
  void barrier(std::source_location loc);
  void shfl(std::uint32_t mine, int src, std::uint32_t* result, std::source_location loc);
  void allgather(const void* mine, std::size_t bytes, void* out, std::source_location loc);
  void arrive_at_warp_collective(fiber* f, const char* what, std::source_location loc);
  void record_shared(const void* p, std::size_t bytes, bool write, std::source_location loc);
  void* shared_static(std::size_t bytes, std::size_t align, std::source_location loc);
  void* shared_dynamic() { return arena_; }

  // --- stack overflow detection ---
  bool in_guard(const void* addr) const {
    auto a = static_cast<const unsigned char*>(addr);
    for (const auto& f : fibers_)
      if (a >= f->map && a < f->map + f->guard_bytes) return true;
    return false;
  }
  sigjmp_buf overflow_jump;
  bool overflow_armed = false;

 private:
  void prepare(unsigned block, std::size_t dyn_smem);
  void run_block(unsigned b);
  fiber* resume(fiber* f);
  void wake(unsigned first, unsigned count, bool front);
  void wake_warp(unsigned warp, fiber* except);
  void complete_warp(unsigned warp);
  [[noreturn]] void fail(std::string msg) { throw abort_launch{std::move(msg)}; }
  std::string where_everyone_waits() const;
  std::string header() const;
  unsigned pick();
  std::uint64_t next_random() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  std::vector<std::unique_ptr<fiber>> fibers_;
  std::size_t stack_bytes_ = 0;
  launch_info li_;
  kernel_body body_ = nullptr;
  void* packed_ = nullptr;
  const char* name_ = nullptr;
  fiber* running_ = nullptr;
  fctx::fcontext_t sched_ctx_ = nullptr;
  unsigned block_ = 0, n_ = 0, exited_ = 0, barrier_arrived_ = 0;
  std::vector<warp_sync> warps_;
  ready_ring ready_;
  std::uint64_t rng_ = 1;
  std::string fatal_;  // set on a fiber, thrown by the scheduler

  unsigned char* arena_ = nullptr;
  std::size_t arena_bytes_ = 0, static_base_ = 0, carved_ = 0;
  std::unique_ptr<unsigned char[], void (*)(unsigned char*)> arena_owner_{nullptr, [](unsigned char*) {}};
  std::vector<hazard_cell> cells_;
  std::uint32_t epoch_ = 0;

  const void* main_stack_lo_ = nullptr;
  std::size_t main_stack_size_ = 0;
};

emulator& this_thread_emulator() {
  thread_local std::unique_ptr<emulator> e = std::make_unique<emulator>();
  return *e;
}

void fiber_main(fctx::transfer_t t) {
  emulator* e = running_emulator;
  e->on_first_entry(t);
  fiber* f = e->running();
  for (;;) {
    try {
      e->run_body();
    } catch (...) {
      f->error = std::current_exception();
    }
    e->on_exit(f);
    e->switch_away(f);
    e = running_emulator;  // a later launch resumes this fiber for its next GPU thread
  }
}

// --- stack overflow: a guard page below every stack, and a SIGSEGV handler on an alternate stack that turns a hit
// into a kernel_error by jumping back to the scheduler. Under ASan, ASan's own handler reports the overflow.
#if !TP_FIBER_ASAN
struct sigaction previous_segv;

void on_segv(int sig, siginfo_t* info, void* uctx) {
  emulator* e = running_emulator;
  if (e && e->overflow_armed && e->in_guard(info->si_addr)) siglongjmp(e->overflow_jump, 1);
  sigaction(SIGSEGV, &previous_segv, nullptr);  // not ours: let the default (or previous) handler report it
  raise(sig);
  (void)uctx;
}

void install_alt_stack() {
  thread_local std::unique_ptr<unsigned char[]> alt;
  if (!alt) {
    const std::size_t bytes = 64 * 1024;
    alt.reset(new unsigned char[bytes]);
    stack_t ss{};
    ss.ss_sp = alt.get();
    ss.ss_size = bytes;
    sigaltstack(&ss, nullptr);
  }
}

void install_overflow_handler() {
  struct sigaction sa {}, old {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old);
  if (old.sa_sigaction != on_segv) previous_segv = old;
  install_alt_stack();
}
#endif

std::size_t page_size() {
  static const std::size_t p = std::size_t(sysconf(_SC_PAGESIZE));
  return p;
}

void emulator::prepare(unsigned block, std::size_t dyn_smem) {
  const std::size_t page = page_size();
  const std::size_t want = (std::max<std::size_t>(opts.stack_bytes, 16 * 1024) + page - 1) / page * page;
  if (want != stack_bytes_) {
    fibers_.clear();
    stack_bytes_ = want;
  }
  while (fibers_.size() < block) {
    auto f = std::make_unique<fiber>();
    f->guard_bytes = page;
    f->map_bytes = page + stack_bytes_;
    void* m = mmap(nullptr, f->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw kernel_error("tp::cpu: cannot map a fiber stack of " + std::to_string(stack_bytes_) + " bytes");
    f->map = static_cast<unsigned char*>(m);
    f->colour = (fibers_.size() % 61) * 64;
    mprotect(f->map, page, PROT_NONE);
    fibers_.push_back(std::move(f));
  }
  const std::size_t dyn = (dyn_smem + 63) / 64 * 64;
  const std::size_t need = dyn + static_smem_cap;
  if (need > arena_bytes_) {
    auto* p = static_cast<unsigned char*>(::operator new(need, std::align_val_t(64)));
    arena_owner_ = std::unique_ptr<unsigned char[], void (*)(unsigned char*)>(
        p, [](unsigned char* q) { ::operator delete(q, std::align_val_t(64)); });
    arena_ = p;
    arena_bytes_ = need;
    cells_.clear();
  }
  static_base_ = dyn;
  if (opts.hazards && cells_.size() < arena_bytes_) cells_.assign(arena_bytes_, hazard_cell{});
  ready_.reset(block);
  warps_.assign((block + li_.warp_size - 1) / li_.warp_size, warp_sync{});
  for (unsigned w = 0; w < warps_.size(); ++w) warps_[w].lanes = std::min(li_.warp_size, block - w * li_.warp_size);
}

void emulator::run(unsigned grid, unsigned block, std::size_t dyn_smem, kernel_body body, void* packed,
                   const char* name) {
  if (opts.warp_size == 0 || opts.warp_size > 64 || (opts.warp_size & (opts.warp_size - 1)))
    throw std::invalid_argument("tp::cpu: warp_size must be a power of two <= 64, got " + std::to_string(opts.warp_size));
  if (block == 0 || grid == 0)
    throw std::invalid_argument("tp::launch: empty launch (grid " + std::to_string(grid) + ", block " +
                                std::to_string(block) + ")");
  if (block > 1024) throw std::invalid_argument("tp::launch: block of " + std::to_string(block) + " threads (max 1024)");
  if (running_emulator) throw kernel_error("tp::launch: a kernel launched another kernel (not supported on the CPU backend)");

  li_ = launch_info{grid, block, opts.warp_size, dyn_smem, opts.hazards};
  body_ = body;
  packed_ = packed;
  name_ = name;
  n_ = block;
  prepare(block, dyn_smem);
#if !TP_FIBER_ASAN
  static thread_local bool handler_installed = false;
  if (!std::exchange(handler_installed, true)) install_overflow_handler();
#endif

  running_emulator = this;
  detail::hazards_on = opts.hazards;
  struct restore {
    ~restore() {
      running_emulator = nullptr;
      detail::current = nullptr;
      detail::hazards_on = false;
    }
  } restore_on_exit;

  std::string failure;
  std::exception_ptr kernel_exception;
  unsigned b = 0;
  try {
#if !TP_FIBER_ASAN
    // The SIGSEGV handler runs with SA_NODEFER, so the signal mask needs no saving (no syscall per launch).
    if (sigsetjmp(overflow_jump, 0)) {
      overflow_armed = false;
      fiber* f = running_;
      fail(header() + "stack overflow in thread " + std::to_string(f->ts.thread) + " (fiber stack " +
           std::to_string(f->stack_size()) + " bytes; raise tp::cpu::run_options::stack_bytes)");
    }
    overflow_armed = true;
#endif
    for (; b < grid; ++b) run_block(b);
    overflow_armed = false;
    return;
  } catch (abort_launch& a) {
    failure = std::move(a.message);
  } catch (...) {
    kernel_exception = std::current_exception();
  }
  overflow_armed = false;
  // Fibers that did not finish are abandoned mid-stack; they restart from scratch at the next launch.
  for (unsigned i = 0; i < n_; ++i) {
    fiber* f = fibers_[i].get();
    if (f->parked != park_kind::exited || f->fresh) f->fresh = true;
    f->error = nullptr;
  }
  running_ = nullptr;
  if (kernel_exception) std::rethrow_exception(kernel_exception);
  throw kernel_error(failure);
}

std::string emulator::header() const {
  return std::string("tp::cpu: kernel ") + (name_ ? name_ : "(unnamed)") + ", block " + std::to_string(block_) +
         " of " + std::to_string(li_.grid_dim) + " (" + std::to_string(n_) + " threads, warp " +
         std::to_string(li_.warp_size) + ", policy " + to_string(opts.sched) + "): ";
}

void emulator::run_block(unsigned b) {
  block_ = b;
  exited_ = barrier_arrived_ = 0;
  for (auto& w : warps_) w.arrived = w.exited = 0;
  ++epoch_;
  carved_ = 0;
  std::memset(arena_, smem_poison, static_base_);
  rng_ = (opts.seed ^ (0x9E3779B97F4A7C15ull * (b + 1))) | 1;

  for (unsigned i = 0; i < n_; ++i) {
    fiber* f = fibers_[i].get();
    f->ts = thread_state{i, b, &li_, i / li_.warp_size, i % li_.warp_size, 0};
    f->parked = park_kind::none;
    f->runnable = true;
  }
  if (opts.sched == policy::reverse)
    for (unsigned i = n_; i-- > 0;) ready_.push_back(i);
  else
    for (unsigned i = 0; i < n_; ++i) ready_.push_back(i);

  while (fiber* next = next_fiber()) {
    fiber* f = resume(next);
    if (f->error) {
      std::exception_ptr e = f->error;
      f->error = nullptr;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        fail(header() + "thread " + std::to_string(f->ts.thread) + " threw: " + x.what());
      } catch (...) {
        fail(header() + "thread " + std::to_string(f->ts.thread) + " threw a non-standard exception");
      }
    }
    if (!fatal_.empty()) fail(header() + std::exchange(fatal_, {}));
  }
  if (!fatal_.empty()) fail(header() + std::exchange(fatal_, {}));
  if (exited_ != n_) fail(header() + "deadlock: no thread can run. " + where_everyone_waits());
}

unsigned emulator::pick() {
  if (opts.sched == policy::random) return ready_.pop_at(unsigned(next_random() % ready_.size()));
  return ready_.pop_front();
}

// Runs fibers from `f` on until one switches back here; returns that one.
fiber* emulator::resume(fiber* f) {
#if TP_FIBER_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f->stack_lo(), f->stack_size());
#endif
  fctx::transfer_t t = fctx::jump_fcontext(f->ctx, nullptr);
#if TP_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  auto* back = static_cast<fiber*>(t.data);
  back->ctx = t.fctx;
  running_ = nullptr;
  return back;
}

// Threads woken by a completed collective or barrier, queued as the policy wants them.
void emulator::wake(unsigned first, unsigned count, bool front) {
  const bool reversed = opts.sched == policy::reverse;
  if (front) {
    for (unsigned k = count; k-- > 0;) {
      unsigned i = first + (reversed ? count - 1 - k : k);
      if (fibers_[i]->parked != park_kind::exited && !fibers_[i]->runnable) {
        fibers_[i]->runnable = true;
        ready_.push_front(i);
      }
    }
  } else {
    for (unsigned k = 0; k < count; ++k) {
      unsigned i = first + (reversed ? count - 1 - k : k);
      if (fibers_[i]->parked != park_kind::exited && !fibers_[i]->runnable) {
        fibers_[i]->runnable = true;
        ready_.push_back(i);
      }
    }
  }
}

void emulator::on_exit(fiber* f) {
  f->parked = park_kind::exited;
  f->runnable = false;
  ++exited_;
  warp_sync& w = warps_[f->ts.warp];
  ++w.exited;
  if (!fatal_.empty()) return;
  if (barrier_arrived_ > 0 && barrier_arrived_ + exited_ == n_)
    fatal_ = "divergent barrier: " + std::to_string(exited_) + " thread(s) exited while " +
             std::to_string(barrier_arrived_) + " wait at sync_threads. " + where_everyone_waits();
  else if (w.arrived > 0 && w.arrived + w.exited == w.lanes)
    fatal_ = "warp collective with exited lanes in warp " + std::to_string(f->ts.warp) + ". " + where_everyone_waits();
}

void emulator::barrier(std::source_location loc) {
  fiber* f = running_;
  f->where = loc;
  f->parked = park_kind::barrier;
  if (++barrier_arrived_ + exited_ < n_) return park(f);
  if (exited_ > 0) {
    fatal_ = "divergent barrier: " + std::to_string(exited_) + " thread(s) exited while " +
             std::to_string(barrier_arrived_) + " wait at sync_threads. " + where_everyone_waits();
    return park(f);
  }
  for (unsigned i = 0; i < n_; ++i)
    if (!same_site(fibers_[i]->where, loc)) {
      fatal_ = "divergent barrier: threads wait at different sync_threads calls. " + where_everyone_waits();
      return park(f);
    }
  barrier_arrived_ = 0;
  ++epoch_;
  // Everyone, the releasing thread included, queues in policy order, so the policy picks who leads the next phase.
  f->runnable = false;
  wake(0, n_, false);
  switch_away(f);
}

void emulator::complete_warp(unsigned warp) {
  warp_sync& w = warps_[warp];
  const unsigned first = warp * li_.warp_size;
  fiber* lead = fibers_[first].get();
  for (unsigned l = 0; l < w.lanes; ++l) {
    fiber* g = fibers_[first + l].get();
    if (g->parked != lead->parked || g->bytes != lead->bytes) {
      fatal_ = "warp " + std::to_string(warp) + " lanes disagree on the collective: lane 0 at " +
               park_name(lead->parked) + " " + site_text(lead->where) + ", lane " + std::to_string(l) + " at " +
               park_name(g->parked) + " " + site_text(g->where);
      return;
    }
  }
  if (lead->parked == park_kind::shfl) {
    for (unsigned l = 0; l < w.lanes; ++l) {
      fiber* g = fibers_[first + l].get();
      const unsigned src = g->src % li_.warp_size;
      if (src >= w.lanes) {
        fatal_ = "shfl from lane " + std::to_string(src) + " of warp " + std::to_string(warp) + ", which has only " +
                 std::to_string(w.lanes) + " lanes, at " + site_text(g->where);
        return;
      }
      *g->result = fibers_[first + src]->word;
    }
  } else {
    auto* out0 = static_cast<unsigned char*>(lead->out);
    const std::size_t bytes = lead->bytes;
    for (unsigned l = 0; l < w.lanes; ++l) std::memcpy(out0 + l * bytes, fibers_[first + l]->mine, bytes);
    if (w.lanes < li_.warp_size) std::memset(out0 + w.lanes * bytes, smem_poison, (li_.warp_size - w.lanes) * bytes);
    for (unsigned l = 1; l < w.lanes; ++l) std::memcpy(fibers_[first + l]->out, out0, li_.warp_size * bytes);
  }
  w.arrived = 0;
}

// The common arrival of shfl and warp_allgather: park until the warp has arrived; the last lane completes the
// collective for the warp (or reports lanes that exited) and wakes the others.
void emulator::arrive_at_warp_collective(fiber* f, const char* what, std::source_location loc) {
  warp_sync& w = warps_[f->ts.warp];
  if (++w.arrived + w.exited < w.lanes) return park(f);
  if (w.exited > 0) {
    fatal_ = std::string(what) + " at " + site_text(loc) + " in warp " + std::to_string(f->ts.warp) + " after " +
             std::to_string(w.exited) + " lane(s) exited. " + where_everyone_waits();
    return park(f);
  }
  complete_warp(f->ts.warp);
  if (!fatal_.empty()) return park(f);
  f->parked = park_kind::none;
  wake(f->ts.warp * li_.warp_size, w.lanes, opts.sched == policy::adversarial);
}

void emulator::shfl(std::uint32_t mine, int src, std::uint32_t* result, std::source_location loc) {
  fiber* f = running_;
  f->parked = park_kind::shfl;
  f->where = loc;
  f->word = mine;
  f->src = unsigned(src);
  f->result = result;
  f->bytes = 4;
  arrive_at_warp_collective(f, "shfl", loc);
}

void emulator::allgather(const void* mine, std::size_t bytes, void* out, std::source_location loc) {
  fiber* f = running_;
  f->parked = park_kind::allgather;
  f->where = loc;
  f->mine = mine;
  f->out = out;
  f->bytes = bytes;
  arrive_at_warp_collective(f, "warp_allgather", loc);
}

// "warp 0: lanes 0-15 at sync_threads k.cu:12 (fn); lanes 16-31 exited | warp 1: ..."
std::string emulator::where_everyone_waits() const {
  std::string s;
  for (unsigned w = 0; w < warps_.size(); ++w) {
    s += (w ? " | warp " : "where each warp waits: warp ") + std::to_string(w) + ":";
    const unsigned first = w * li_.warp_size;
    unsigned l = 0;
    const unsigned lanes = warps_[w].lanes;
    while (l < lanes) {
      const fiber* a = fibers_[first + l].get();
      unsigned r = l + 1;
      while (r < lanes) {
        const fiber* b = fibers_[first + r].get();
        if (b->parked != a->parked || (a->parked != park_kind::exited && !same_site(a->where, b->where))) break;
        ++r;
      }
      s += l ? "; lanes " : " lanes ";
      s += std::to_string(l);
      if (r - 1 > l) s.append("-").append(std::to_string(r - 1));
      s.append(" ").append(park_name(a->parked));
      if (a->parked == park_kind::barrier || a->parked == park_kind::shfl || a->parked == park_kind::allgather)
        s += " at " + site_text(a->where);
      l = r;
    }
  }
  return s;
}

void* emulator::shared_static(std::size_t bytes, std::size_t align, std::source_location loc) {
  thread_state& ts = running_->ts;
  const std::size_t at = (ts.smem_cursor + align - 1) / align * align;
  const std::size_t end = at + bytes;
  if (end > static_smem_cap)
    throw kernel_error("TP_SHARED at " + site_text(loc) + " needs " + std::to_string(end) +
                       " bytes of static shared memory (the limit is " + std::to_string(static_smem_cap) + ")");
  ts.smem_cursor = end;
  if (end > carved_) {
    std::memset(arena_ + static_base_ + carved_, smem_poison, end - carved_);
    carved_ = end;
  }
  return arena_ + static_base_ + at;
}

void emulator::record_shared(const void* p, std::size_t bytes, bool write, std::source_location loc) {
  auto* a = static_cast<const unsigned char*>(p);
  if (a < arena_ || a + bytes > arena_ + arena_bytes_) return;  // not this block's shared memory
  const std::size_t off = std::size_t(a - arena_);
  const fiber* f = running_;
  const auto warp = std::uint16_t(f->ts.warp), lane = std::uint16_t(f->ts.lane);
  const std::uint32_t e = epoch_;
  const hazard_cell* clash[3] = {nullptr, nullptr, nullptr};  // raw, war, waw: first conflicting cell of this access
  std::size_t clash_off[3] = {0, 0, 0};
  for (std::size_t i = 0; i < bytes; ++i) {
    hazard_cell& c = cells_[off + i];
    if (write) {
      if (c.w_epoch == e && c.w_warp != warp && !clash[2]) clash[2] = &c, clash_off[2] = off + i;
      if (c.r_epoch == e && (c.r_warp != warp || c.r_multi) && !clash[1]) clash[1] = &c, clash_off[1] = off + i;
    } else if (c.w_epoch == e && c.w_warp != warp && !clash[0]) {
      clash[0] = &c, clash_off[0] = off + i;
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (!clash[k]) continue;
    const hazard_cell& c = *clash[k];
    hazard_pair h;
    h.kind = hazard_kind(k);
    h.block = block_;
    h.offset = clash_off[k];
    if (h.kind == hazard_kind::war && c.r_warp != warp)
      h.earlier = hazard_site{c.r_warp, c.r_lane, false, c.r_where};
    else if (h.kind == hazard_kind::war)
      h.earlier = hazard_site{c.r2_warp, c.r2_lane, false, c.r2_where};
    else
      h.earlier = hazard_site{c.w_warp, c.w_lane, true, c.w_where};
    h.later = hazard_site{warp, lane, write, loc};
    (k == 0 ? hazards.raw : k == 1 ? hazards.war : hazards.waw) += 1;
    if (hazards.first.size() < hazard_report_pairs_kept) hazards.first.push_back(h);
  }
  for (std::size_t i = 0; i < bytes; ++i) {
    hazard_cell& c = cells_[off + i];
    if (write) {
      c.w_epoch = e;
      c.w_warp = warp;
      c.w_lane = lane;
      c.w_where = loc;
    } else if (c.r_epoch != e) {
      c.r_epoch = e;
      c.r_warp = warp;
      c.r_lane = lane;
      c.r_where = loc;
      c.r_multi = false;
    } else if (c.r_warp != warp && !c.r_multi) {
      c.r_multi = true;  // a later write by any warp now conflicts with a reader of another warp
      c.r2_warp = warp;
      c.r2_lane = lane;
      c.r2_where = loc;
    }
  }
}

}  // namespace

namespace detail {
void barrier(std::source_location loc) { running_emulator->barrier(loc); }
void shfl_word(std::uint32_t mine, int src_lane, std::uint32_t* result, std::source_location loc) {
  running_emulator->shfl(mine, src_lane, result, loc);
}
void allgather(const void* mine, std::size_t bytes, void* out, std::source_location loc) {
  running_emulator->allgather(mine, bytes, out, loc);
}
void record_shared_slow(const void* p, std::size_t bytes, bool write, std::source_location loc) {
  running_emulator->record_shared(p, bytes, write, loc);
}
void* shared_static(std::size_t bytes, std::size_t align, std::source_location loc) {
  return running_emulator->shared_static(bytes, align, loc);
}
void* shared_dynamic() { return running_emulator->shared_dynamic(); }
}  // namespace detail

void record_global_slow(shadow* sh, const void* p, std::size_t bytes, bool write, std::source_location loc) {
  auto* a = static_cast<const unsigned char*>(p);
  const std::size_t total = sh->count * sh->elem_bytes;
  if (a < sh->base || a + bytes > sh->base + total) {
    const long long elem = (a - sh->base) / (long long)sh->elem_bytes;
    throw kernel_error(std::string("global ") + (write ? "write" : "read") + " out of bounds: element " +
                       std::to_string(elem) + " of a buffer of " + std::to_string(sh->count) + " at " +
                       tp::describe(loc));
  }
  const std::size_t first = std::size_t(a - sh->base) / sh->elem_bytes;
  const std::size_t last = (std::size_t(a - sh->base) + bytes - 1) / sh->elem_bytes;
  if (write) {
    for (std::size_t i = first; i <= last; ++i) sh->state[i] = elem_state::kernel_written;
    return;
  }
  for (std::size_t i = first; i <= last; ++i) {
    const elem_state s = sh->state[i];
    if (s == elem_state::kernel_written) continue;
    (s == elem_state::host_initialised ? sh->unwritten.host_initialised_reads : sh->unwritten.never_written_reads) += 1;
    if (sh->unwritten.first.size() < access_report_sites_kept) {
      const thread_state* ts = detail::current;
      sh->unwritten.first.push_back(access_site{i, s, ts ? ts->block : 0, ts ? ts->thread : 0, loc});
    }
  }
}

void set_run_options(const run_options& o) { this_thread_emulator().opts = o; }
const run_options& get_run_options() { return this_thread_emulator().opts; }

void install_stack_overflow_handler() {
#if !TP_FIBER_ASAN
  install_overflow_handler();
#endif
}

hazard_report take_hazard_report() { return std::exchange(this_thread_emulator().hazards, hazard_report{}); }

void run_kernel(unsigned grid, unsigned block, std::size_t dyn_smem, kernel_body body, void* packed,
                const char* kernel_name) {
  this_thread_emulator().run(grid, block, dyn_smem, body, packed, kernel_name);
}

}  // namespace tp::cpu
