#include "harness/profile/trace_span_json.h"

namespace gpubench {

nlohmann::json to_json(const TraceSpanSet& set) {
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& span : set.spans)
    spans.push_back({{"name", span.name},
                     {"category", span.category},
                     {"start_us", span.start_us},
                     {"duration_us", span.duration_us},
                     {"tid", span.tid},
                     {"args", span.args}});
  nlohmann::json threads = nlohmann::json::object();
  for (const auto& [tid, name] : set.thread_names) threads[std::to_string(tid)] = name;
  return {{"config_id", set.config_id}, {"rank", set.rank}, {"spans", spans}, {"thread_names", threads}};
}

TraceSpanSet trace_span_set_from_json(const nlohmann::json& json) {
  TraceSpanSet set;
  set.config_id = json.at("config_id").get<std::string>();
  set.rank = json.at("rank").get<int>();
  for (const auto& span : json.at("spans"))
    set.spans.push_back({span.at("name").get<std::string>(), span.at("category").get<std::string>(),
                         span.at("start_us").get<double>(), span.at("duration_us").get<double>(),
                         span.at("tid").get<int>(), span.value("args", nlohmann::json::object())});
  for (const auto& [tid, name] : json.at("thread_names").items()) set.thread_names[std::stoi(tid)] = name.get<std::string>();
  return set;
}

}  // namespace gpubench
