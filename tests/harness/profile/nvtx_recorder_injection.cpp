// A minimal NVTX tool for tests: an injection library that records every range push/pop
// (and mark, domain creation) to a text file, so NVTX instrumentation can be checked on a
// machine with no GPU and no Nsight.
//
// How NVTX finds it: NVTX3 is header-only; the first NVTX call in a process reads env
// NVTX_INJECTION64_PATH, dlopens that library and calls its exported
// `int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t)`. The library asks for the
// callbacks export table, gets each module's function table (arrays of pointers to the
// process's NVTX function-pointer slots) and writes its own functions into the slots it
// implements; NVTX turns every slot left alone into a no-op.
//
// Log: env GPUBENCH_NVTX_LOG names the file. One line per event, appended with a single
// write(2) on an O_APPEND descriptor (no user-space buffering), so a process that
// crashes, or several processes (DDP ranks) sharing one file, still leave whole lines:
//   <pid> TAB <tid> TAB <event> TAB <domain> TAB <message>
// event:   init | domain_create | domain_destroy | push | pop | mark
// domain:  the name given to nvtxDomainCreateA; "(default)" for the non-domain API
// message: the range's text (ASCII or registered string). For pop, the text of the range
//          it closes, or "<unbalanced>" if that thread/domain stack was empty.
// Tabs, newlines and backslashes in messages are escaped as \t, \n, \\.
// tests/harness/profile/nvtx_log.h parses this format.

#define NVTX_NO_IMPL  // we are the tool: types and declarations only
#include <nvtx3/nvToolsExt.h>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

int g_log_fd = -1;

// Handles given to the application. Never freed: the application may use a handle until
// exit, even (wrongly) after destroying its domain.
struct DomainRecord {
  std::string name;
};
struct StringRecord {
  std::string text;
};

// NVTX push/pop stacks are per thread and per domain.
thread_local std::map<const void*, std::vector<std::string>> t_stacks;

std::string escape(const char* text) {
  std::string out;
  for (const char* p = text; *p != '\0'; ++p) {
    switch (*p) {
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\\': out += "\\\\"; break;
      default: out += *p;
    }
  }
  return out;
}

std::string domain_name(nvtxDomainHandle_t domain) {
  return domain == nullptr ? "(default)" : reinterpret_cast<const DomainRecord*>(domain)->name;
}

std::string message_of(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "";
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii != nullptr ? escape(attributes->message.ascii) : "";
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return attributes->message.registered != nullptr
                 ? reinterpret_cast<const StringRecord*>(attributes->message.registered)->text
                 : "";
    case NVTX_MESSAGE_TYPE_UNICODE: return "<unicode>";
    default: return "";
  }
}

void log_event(const char* event, const std::string& domain, const std::string& message) {
  const long tid = ::syscall(SYS_gettid);
  const std::string line = std::to_string(::getpid()) + '\t' + std::to_string(tid) + '\t' + event + '\t' + domain +
                           '\t' + message + '\n';
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(g_log_fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nothing sensible to do inside the app's NVTX call
    written += static_cast<std::size_t>(n);
  }
}

int push(nvtxDomainHandle_t domain, const std::string& message) {
  auto& stack = t_stacks[domain];
  stack.push_back(message);
  log_event("push", domain_name(domain), message);
  return static_cast<int>(stack.size()) - 1;  // NVTX: zero-based level of the new range
}

int pop(nvtxDomainHandle_t domain) {
  auto& stack = t_stacks[domain];
  if (stack.empty()) {
    log_event("pop", domain_name(domain), "<unbalanced>");
    return -1;
  }
  const std::string message = stack.back();
  stack.pop_back();
  log_event("pop", domain_name(domain), message);
  return static_cast<int>(stack.size());
}

// ---- Domain API (module CORE2) ----
nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  auto* record = new DomainRecord{name != nullptr ? escape(name) : ""};
  log_event("domain_create", record->name, "");
  return reinterpret_cast<nvtxDomainHandle_t>(record);
}
void NVTX_API domain_destroy(nvtxDomainHandle_t domain) { log_event("domain_destroy", domain_name(domain), ""); }
nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t, const char* text) {
  return reinterpret_cast<nvtxStringHandle_t>(new StringRecord{text != nullptr ? escape(text) : ""});
}
int NVTX_API domain_range_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  return push(domain, message_of(attributes));
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t domain) { return pop(domain); }
void NVTX_API domain_mark_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  log_event("mark", domain_name(domain), message_of(attributes));
}

// ---- Default-domain API (module CORE) ----
int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) { return push(nullptr, message_of(attributes)); }
int NVTX_API range_push_a(const char* message) { return push(nullptr, message != nullptr ? escape(message) : ""); }
int NVTX_API range_pop() { return pop(nullptr); }
void NVTX_API mark_ex(const nvtxEventAttributes_t* attributes) { log_event("mark", "(default)", message_of(attributes)); }
void NVTX_API mark_a(const char* message) { log_event("mark", "(default)", message != nullptr ? escape(message) : ""); }

// Writes `function` into slot `id` of `module`'s table. Casting through
// NvtxFunctionPointer (void(*)(void)) is how NVTX tools store any slot type.
template <typename Function>
bool install(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module, unsigned id, Function function) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return false;
  if (id == 0 || id >= size || table[id] == nullptr) return false;
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int NVTX_API
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const char* path = std::getenv("GPUBENCH_NVTX_LOG");
  if (path == nullptr || *path == '\0') {
    std::fprintf(stderr, "nvtx recorder: GPUBENCH_NVTX_LOG is not set; NVTX stays off\n");
    return 0;  // NVTX then unloads us and makes every call a no-op
  }
  g_log_fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (g_log_fd < 0) {
    std::fprintf(stderr, "nvtx recorder: cannot open GPUBENCH_NVTX_LOG '%s': %s\n", path, std::strerror(errno));
    return 0;
  }
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;

  bool ok = true;
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, &domain_create_a);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, &domain_register_string_a);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, &domain_range_push_ex);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, &domain_range_pop);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, &domain_mark_ex);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, &range_push_ex);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, &range_push_a);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, &range_pop);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, &mark_ex);
  ok &= install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, &mark_a);
  if (!ok) {
    std::fprintf(stderr, "nvtx recorder: the application's NVTX function tables are not the expected layout\n");
    return 0;
  }
  log_event("init", "", "");
  return 1;
}
