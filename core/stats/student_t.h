#pragma once

namespace gpubench {

// Student's t distribution with `df` degrees of freedom (df > 0, not necessarily an
// integer: Welch's test gives fractional df). Computed from the regularized incomplete
// beta function, accurate to ~1e-10 for df up to 1e5 (the normal beyond, within ~1e-5),
// far below what a decision at alpha needs.

// P(T <= t).
double student_t_cdf(double t, double df);

// t with P(T <= t) = p, for 0 < p < 1.
double student_t_quantile(double p, double df);

// Regularized incomplete beta I_x(a, b), for a, b > 0 and 0 <= x <= 1.
double regularized_incomplete_beta(double x, double a, double b);

}  // namespace gpubench
