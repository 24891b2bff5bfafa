#include "gspn/measure_source.hpp"

namespace mmt::gspn {

std::vector<double> evaluateMeasures(const Net& net, const MeasureSource& source) {
  using Op = Expression::Op;
  std::vector<double> values;
  for (const Measure& m : net.measures()) {
    values.push_back(m.expression.evaluateMeasure(
        [&](const Expression::Instruction& in, const Expression* operand) -> double {
          switch (in.op) {
            case Op::Mean:
              return source.expectation([&](MarkingView x) { return operand->evaluate(x); });
            case Op::Probability:
              return source.expectation(
                  [&](MarkingView x) { return operand->evaluate(x) != 0 ? 1.0 : 0.0; });
            case Op::Throughput: return source.throughput(in.index);
            case Op::Measure: return values.at(in.index);
            default: return 0.0;
          }
        }));
  }
  return values;
}

}  // namespace mmt::gspn
