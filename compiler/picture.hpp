#pragma once
/// \file
/// The results drawn on the system, not on the net (`mmt solve FILE --picture OUT`): each
/// processor a box holding its actors and data nodes, each link or bus a node joined to the
/// processors it connects, the dataflow arcs between actors and data nodes. Processors and
/// links are filled on a white-to-red scale of their utilization and labelled with
/// utilization and queue length; the most utilized station, the bottleneck, is outlined
/// and named. Laid out and rendered by Graphviz (cgraph and gvc).

#include <string>

#include "compiler/compile.hpp"
#include "compiler/metrics.hpp"

namespace mmt::compiler {

/// Renders `compiled` with `metrics` in `format` ("svg", "png" or "dot", the last with the
/// layout's coordinates) to `path`. Throws std::runtime_error when Graphviz fails.
void drawSystem(const CompiledSystem& compiled, const SystemMetrics& metrics,
                const std::string& path, const std::string& format);

/// The same picture as text in `format` ("svg", or "dot" with the layout's coordinates).
/// Throws std::runtime_error when Graphviz fails.
std::string renderSystem(const CompiledSystem& compiled, const SystemMetrics& metrics,
                         const std::string& format);

/// The same picture as DOT text, laid out (for tests and for `--picture OUT.dot`).
std::string systemDot(const CompiledSystem& compiled, const SystemMetrics& metrics);

/// The bottleneck: the processor or link with the largest utilization (the first on a
/// tie), as "processor P4" or "link L12".
std::string bottleneck(const SystemMetrics& metrics);

}  // namespace mmt::compiler
