#include "gspn/measure_source.hpp"

#include <algorithm>

namespace mmt::gspn {

std::vector<double> evaluateMeasures(const Net& net, const MeasureSource& source) {
  using Op = Expression::Op;
  std::vector<double> values;
  for (const Measure& m : net.measures()) {
    values.push_back(m.expression.evaluateMeasure(
        [&](const Expression::Instruction& in, const Expression* operand) -> double {
          switch (in.op) {
            case Op::Mean:
              if (const auto linear = operand->linearForm()) {
                double mean = linear->constant;
                for (const auto& [place, c] : linear->terms) mean += c * source.meanTokens(place);
                return mean;
              }
              return source.expectation([&](MarkingView x) { return operand->evaluate(x); },
                                        placesRead(*operand));
            case Op::Probability:
              return source.expectation(
                  [&](MarkingView x) { return operand->evaluate(x) != 0 ? 1.0 : 0.0; },
                  placesRead(*operand));
            case Op::Throughput:
              return source.throughput(in.index);
            case Op::Measure:
              return values.at(in.index);
            default:
              return 0.0;
          }
        }));
  }
  return values;
}

bool measuresNeedExpectations(const Net& net) {
  using Op = Expression::Op;
  return std::any_of(net.measures().begin(), net.measures().end(), [](const Measure& m) {
    const auto& code = m.expression.code();
    return std::any_of(code.begin(), code.end(), [&](const Expression::Instruction& in) {
      return in.op == Op::Probability ||
             (in.op == Op::Mean && !m.expression.operands().at(in.index).linearForm());
    });
  });
}

}  // namespace mmt::gspn
