// Parsing JSON text of profiles with limits (profile_json.h, parse_json_text): nesting
// depth, duplicate keys and numbers that overflow a double are errors naming the field as
// a JSON pointer, never a crash, a silent last-wins or a raw library message
// (docs/robustness.md).
#include "model/profile_json.h"

#include "util/json_pointer.h"
#include "util/text.h"

#include <set>
#include <vector>

namespace gcu::model {
namespace {

// Where the parser is, as a stack of containers; the pointer names the value being read.
class Position {
 public:
  // The parser callback: returns true to keep every value.
  bool on_event(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (frames_.size() >= kMaxJsonDepth)
          throw ProfileError(pointer(), "JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep",
                             "deeper nesting");
        frames_.push_back({event == E::object_start, {}, {}, 0});
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw ProfileError(pointer(), "each key once in an object", "the key " + util::quote(f.key) + " again");
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        value_done();
        break;
      case E::value: value_done(); break;
    }
    return true;
  }

  std::string pointer() const {
    std::string p;
    for (const auto& f : frames_) p = f.object ? util::pointer_child(p, f.key) : util::pointer_child(p, f.index);
    return p;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    size_t index;
  };
  void value_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

// "number overflow parsing '1e999'" -> "1e999".
std::string token_of(const std::string& what) {
  const auto a = what.find('\'');
  const auto b = what.rfind('\'');
  return a != std::string::npos && b > a ? what.substr(a + 1, b - a - 1) : what;
}

}  // namespace

Json parse_json_text(std::string_view text) {
  Position pos;
  const Json::parser_callback_t cb = [&pos](int depth, Json::parse_event_t event, Json& parsed) {
    return pos.on_event(depth, event, parsed);
  };
  try {
    return Json::parse(text.begin(), text.end(), cb);
  } catch (const Json::parse_error& e) {
    const std::string near = pos.pointer().empty() ? "" : " in " + pos.pointer();
    throw ProfileError("", "valid JSON",
                       "a syntax error at byte " + std::to_string(e.byte) + near + " (" + util::printable(e.what()) + ")");
  } catch (const Json::out_of_range& e) {
    throw ProfileError(pos.pointer(), "a number within the range of a double (|x| < 1.8e308)",
                       util::printable(token_of(e.what())));
  } catch (const Json::exception& e) {
    throw ProfileError(pos.pointer(), "valid JSON", util::printable(e.what()));
  }
}

}  // namespace gcu::model
