#pragma once
/// \file
/// Why a contract is not met, and what would help (docs/skeletons.md, "Contracts that
/// explain themselves"). The rules are GridCOMP's behavioural-skeleton manager's
/// ([GridCOMP08] §4): add workers while the farm's service time T_W / n exceeds that of the
/// other stages T_S; otherwise move the slow stage to faster resources; otherwise the
/// contract is violated, and the reason is said. The service times are the structural
/// bounds of compiler/bounds.hpp ([Alt02] §4: a composition is as fast as its slowest
/// part).

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "compiler/bounds.hpp"

namespace mmt::api {

/// An element whose service time makes the bound, with what a user needs to act on it.
struct BottleneckElement {
  compiler::BoundElement::Kind kind = compiler::BoundElement::Kind::Task;
  std::string name;
  double serviceTime = 0;  ///< t per item
  /// Task: its processor, that processor's speed and the mean work per item.
  std::string processor;
  double speed = 0, work = 0;
  /// Task: the other tasks and actors on its processor, which divide its speed.
  std::vector<std::string> sharedWith;
  std::size_t replicas = 0;   ///< Farm, Deal, Map: replicas
  std::size_t transfers = 0;  ///< Move: the transfers it chooses among
};

/// A change that would raise the bound, in GridCOMP's order.
struct Suggestion {
  enum class Remedy {
    MoreWorkers,        ///< more replicas of a farm or deal (or partitions of a map)
    SeparateProcessor,  ///< a processor of its own for a task that shares one
    FasterProcessor,    ///< a faster processor for a task (or a farm's workers)
    FasterLink,         ///< a faster link for a move, or both ends on one processor
  };
  Remedy remedy = Remedy::FasterProcessor;
  std::string element;
  /// With a throughput target: MoreWorkers the replicas needed, FasterProcessor and
  /// FasterLink the speed-up factor needed. SeparateProcessor, always: the bound it gives
  /// at least (the task at work / speed, the tasks left on its processor sharing it with
  /// one fewer, every other element as it is).
  std::optional<double> needed;
  std::string text;  ///< one sentence
};

const char* toString(Suggestion::Remedy remedy);
const char* toString(compiler::BoundElement::Kind kind);

struct Diagnosis {
  double value = 0;                           ///< the parameter value it describes
  double bound = 0;                           ///< the throughput bound there, items per t
  double serviceTime = 0;                     ///< the bottleneck's service time, t per item
  std::vector<BottleneckElement> bottleneck;  ///< the elements that tie for it
  /// The bound once every bottleneck element is made free (1 / the next largest service
  /// time); none when nothing else takes time.
  std::optional<double> boundWithout;
  /// The bound rules out every value: nothing was solved.
  bool impossible = false;
  std::string reason;                   ///< why the requirement is not met
  std::vector<Suggestion> suggestions;  ///< what would help
  nlohmann::ordered_json json() const;
};

/// Diagnoses `model`, the system at value `value` of `parameter`: its bottleneck, the
/// reason the requirement is not met, given its throughput target `target`
/// (Requirement::throughputTarget; none for any other requirement) and the metric obtained
/// there (none when the bound ruled the value out), and the suggestions. Nothing for a model that
/// is not a system of skeletons (no structural bound).
std::optional<Diagnosis> diagnose(const Model& model, double value, const std::string& parameter,
                                  std::optional<double> target, std::optional<double> metric,
                                  bool impossible);

}  // namespace mmt::api
