#pragma once
/// \file
/// The mean-field ODE of a population model (meanfield/population.hpp; docs/meanfield.md).
///
/// The state splits in two. The *discrete part* d: the fixed places' tokens (an emitter, a
/// collector, a crew of repairers) and the number of replicas in each *small* local state,
/// one whose count a P-semiflow bounds by a constant that does not grow with N (a machine
/// being repaired, at most as many as the crew); it keeps a probability p_d for each of
/// its tangible values. The *counts* x: the replicas in every other local state, real
/// numbers of order N. They move by
///
///     dp/dt = p · Q(x),     dx/dt = Σ_d p_d · Σ_events from d  R(d, x) · Δx,
///
/// where Q(x) is the discrete part's generator with the counts frozen at x and each event
/// (a timed class fired from d for replicas in given local states, then its immediate
/// transitions resolved) moves the counts by Δx at rate R. As N grows, x/N follows the
/// drift of Kurtz's theorem ([Kurtz71]: T. G. Kurtz, J. Appl. Prob. 8(2), 1971) while the
/// discrete part stays a Markov chain driven by x, the hybrid limit of [Bortolussi11]
/// (L. Bortolussi, QEST 2011); these equations close it by taking the discrete part and
/// the counts as independent, each replica's local state distributed as the counts are
/// ([BHLM13]: Bortolussi, Hillston, Latella, Massink, Performance Evaluation 70(5), 2013,
/// §3).
///
/// Rates are the net's, read on the counts: a class with replicas in local states ℓ_s in
/// its slots fires at rate m · Π_s n_{ℓ_s} · r(d, ℓ, n'), where n is a small state's count
/// in d or a large one's in x, r is one member's rate (λ times its server count, or its
/// rate expression) and n' is n with each slot's count at least 1 (the replica that fires
/// is one of them): a farm's transfer λ / Σ_k #W[k].idle summed over the idle replicas is
/// λ · min(1, x_idle), the continuous reading of one server ([SilvaRecalde]: Mahulea,
/// Recalde & Silva, DEDS 19(2), 2009).
///
/// Immediate transitions are resolved after each timed firing as exploration resolves
/// them, from the discrete part and the replicas that just moved (each one replica): a
/// class that takes a waiting replica is weighed by its count, and where a large count is
/// below 1 the replica is there with probability x_ℓ (as one server is busy with
/// probability min(1, x)).

#include <Eigen/Dense>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fluid/ode.hpp"
#include "meanfield/population.hpp"

namespace mmt::meanfield {

class Hybrid final : public fluid::DriftSystem {
 public:
  /// Finds the discrete part's tangible values and every event from them. Throws
  /// UnsupportedModel: more than limits.fixedStates of them, a resolution of more than
  /// limits.resolutionBranches branches or with immediate transitions firing without end,
  /// no timed class.
  explicit Hybrid(const PopulationModel& model, const Limits& limits = {});

  const PopulationModel& model() const { return model_; }
  /// The discrete part's tangible values, y's first components: the fixed places' tokens
  /// (in the model's fixed order), then the small local states' counts.
  std::size_t discreteStateCount() const { return discrete_.size(); }
  const std::vector<gspn::Tokens>& discreteState(std::size_t d) const { return discrete_[d]; }
  /// Whether local state `state` of class f is small (a count of the discrete part).
  bool small(std::uint32_t f, std::uint32_t state) const { return where_[f][state].small; }
  /// The replicas of class f in `state` at y: expected, or given discrete value d.
  double replicasIn(const Eigen::VectorXd& y, std::uint32_t f, std::uint32_t state) const;
  double replicasIn(const Eigen::VectorXd& y, std::size_t d, std::uint32_t f,
                    std::uint32_t state) const;

  /// Each transition class's firings per model time unit at y, summed over its members.
  std::vector<double> classFlows(const Eigen::VectorXd& y) const;
  /// The counts where the drift has a kink at y (its derivative from the left differs from
  /// the one from the right: a count that a min(·) or a clamp meets), named.
  std::vector<std::string> kinks(const Eigen::VectorXd& y) const;

  // fluid::DriftSystem
  const Eigen::VectorXd& initial() const override { return initial_; }
  Eigen::VectorXd drift(const Eigen::VectorXd& y) const override;
  Eigen::MatrixXd jacobian(const Eigen::VectorXd& y) const override;
  double flowScale(const Eigen::VectorXd& y) const override;
  const Eigen::MatrixXd& basis() const override { return basis_; }
  double fastestRate() const override { return fastest_; }
  double slowestRate() const override { return slowest_; }
  std::string name(Eigen::Index i) const override;
  std::string describe(Eigen::Index i) const override;

 private:
  /// A sparse change of the counts x: (component, change).
  using Delta = std::vector<std::pair<std::uint32_t, double>>;
  using Fired = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  ///< (class, times)
  struct Outcome {
    std::uint32_t discrete;  ///< the tangible value reached
    double probability;
    Delta counts;
    Fired fired;  ///< immediate classes fired on the way
  };
  struct Event {
    std::uint32_t from;                 ///< tangible discrete value
    std::uint32_t transitionClass;      ///< timed
    std::vector<std::uint32_t> states;  ///< the local state in each slot
    bool countDependent = false;        ///< its resolution reads the counts x
    std::vector<Outcome> outcomes;      ///< when it does not
    /// Events of one group have one rate: the same class and slots' states, and the same
    /// tokens where the class reads the discrete part.
    std::uint32_t group = 0;
  };
  /// A replica followed through one resolution: its class and local state.
  struct Focus {
    std::uint32_t replicas, state;
  };
  struct Vanishing {
    std::vector<gspn::Tokens> discrete;
    std::vector<Focus> focus;
    Delta counts;
    Fired fired;
    std::size_t depth = 0;
  };
  struct Choice;
  /// Where a local state is counted: in the discrete part (its index there) or in x.
  struct Where {
    bool small = false;
    std::uint32_t index = 0;
  };
  /// A P-semiflow read on the discrete part: Σ weights · d ≤ bound, the counts' share
  /// being ≥ 0.
  struct Bound {
    std::vector<double> weights;
    double bound;
  };
  enum class Enabled { No, Yes, Maybe };

  /// Which local states are small, where each is counted, and the semiflows' bounds.
  void classify();
  /// Fixed places and small counts: the length of a discrete value.
  std::size_t discreteSize() const;
  bool admissible(const std::vector<gspn::Tokens>& d) const;
  /// The replicas of class f in `state` as class c's slots see them (each slot's at least
  /// 1) in discrete value d with counts x (none: not known).
  double seen(std::uint32_t f, std::uint32_t state, const std::vector<gspn::Tokens>& d,
              const Eigen::VectorXd& x, const TransitionClass& c,
              const std::vector<std::uint32_t>& slotStates) const;
  /// Whether class c is enabled in d with its slots' replicas in `states` and the counts x
  /// (Maybe: its guard reads the counts, and x is not given).
  Enabled enabled(const TransitionClass& c, const std::vector<gspn::Tokens>& d,
                  const std::vector<std::uint32_t>& states, const Eigen::VectorXd* x) const;
  double value(const PopulationExpression& e, const std::vector<gspn::Tokens>& d,
               const std::vector<std::uint32_t>& slotStates, const TransitionClass& c,
               const Eigen::VectorXd& x) const;
  /// One member's rate.
  double memberRate(const TransitionClass& c, const std::vector<gspn::Tokens>& d,
                    const std::vector<std::uint32_t>& states, const Eigen::VectorXd& x) const;
  /// The event's rate: members per assignment, times the replicas in its slots' states,
  /// times one member's rate.
  double eventRate(const Event& e, const Eigen::VectorXd& x) const;
  std::uint32_t nextState(std::uint32_t f, std::uint32_t state, const TransitionClass& c,
                          std::uint32_t slot) const;
  /// v with slot s's replica of class f moved from `from` to `to`.
  void moveReplica(Vanishing& v, std::uint32_t f, std::uint32_t from, std::uint32_t to) const;
  Vanishing fired(const std::vector<gspn::Tokens>& from, const TransitionClass& c,
                  const std::vector<std::uint32_t>& states) const;
  std::vector<Choice> choices(const Vanishing& v, const Eigen::VectorXd* x) const;
  Vanishing fire(const Vanishing& v, const Choice& choice) const;
  /// The tangible outcomes from v with the counts x (probabilities exact); adds to out.
  void resolve(const Vanishing& v, double probability, const Eigen::VectorXd& x,
               std::vector<Outcome>& out, std::size_t& branches) const;
  /// Every tangible outcome from v whatever the counts (no probabilities), new values
  /// indexed; true when the counts could change which.
  bool resolveAll(const Vanishing& v, std::vector<Outcome>& out, std::size_t& branches);
  std::uint32_t indexOf(const std::vector<gspn::Tokens>& d);
  /// The event's outcomes with the counts x: its own, or resolved into `scratch`.
  const std::vector<Outcome>& outcomesOf(const Event& e, const Eigen::VectorXd& x,
                                         std::vector<Outcome>& scratch) const;
  /// Gives each event its group (Event::group): what its rate reads of the discrete part.
  void groupRates();
  /// The drift; with `perValue`, each discrete value's column of the Jacobian in p; with
  /// `flows`, each class's flow.
  Eigen::VectorXd evaluate(const Eigen::VectorXd& y, Eigen::MatrixXd* perValue,
                           std::vector<double>* flows) const;

  const PopulationModel& model_;
  Limits limits_;
  /// By class and local state.
  std::vector<std::vector<Where>> where_;
  std::size_t counts_ = 0;  ///< components of x
  std::vector<Bound> bounds_;
  std::vector<std::vector<gspn::Tokens>> discrete_;
  std::map<std::vector<gspn::Tokens>, std::uint32_t> discreteIndex_;
  std::vector<Event> events_;
  /// By rate group, an event of it.
  std::vector<std::uint32_t> groupEvent_;
  /// By class of replicas: token vector → local state.
  std::vector<std::map<std::vector<gspn::Tokens>, std::uint32_t>> stateIndex_;
  Eigen::VectorXd initial_;
  Eigen::MatrixXd basis_;
  double fastest_ = 0, slowest_ = 0;
};

}  // namespace mmt::meanfield
