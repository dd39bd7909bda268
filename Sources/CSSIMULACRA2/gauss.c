/* The recursive Gaussian blur of libjxl's lib/jxl/gauss_blur.cc (CreateRecursiveGaussian, FastGaussian1D,
 * VerticalStrip): y_k[n] = n2_k * (in[n-N-1] + in[n+N-1]) - d1_k * y_k[n-1] - y_k[n-2], out = y1 + y3 + y5,
 * zero outside the picture. The constants here; the passes are in kernels.h. */
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include "internal.h"

void ssim2_gauss_init(ssim2_gauss *g, double sigma) {
    const double kPi = 3.141592653589793238;
    const double radius = roundf((float)(3.2795 * sigma + 0.2546));   /* (57), "N" */
    const double pi_div_2r = kPi / (2.0 * radius);
    const double omega[3] = {pi_div_2r, 3.0 * pi_div_2r, 5.0 * pi_div_2r};
    const double p_1 = +1.0 / tan(0.5 * omega[0]);
    const double p_3 = -1.0 / tan(0.5 * omega[1]);
    const double p_5 = +1.0 / tan(0.5 * omega[2]);
    const double r_1 = +p_1 * p_1 / sin(omega[0]);
    const double r_3 = -p_3 * p_3 / sin(omega[1]);
    const double r_5 = +p_5 * p_5 / sin(omega[2]);
    const double neg_half_sigma2 = -0.5 * sigma * sigma;
    const double recip_radius = 1.0 / radius;
    double rho[3];
    for (int i = 0; i < 3; ++i) rho[i] = exp(neg_half_sigma2 * omega[i] * omega[i]) * recip_radius;
    const double D_13 = p_1 * r_3 - r_1 * p_3;
    const double D_35 = p_3 * r_5 - r_3 * p_5;
    const double D_51 = p_5 * r_1 - r_5 * p_1;
    const double recip_d13 = 1.0 / D_13;
    const double zeta_15 = D_35 * recip_d13;
    const double zeta_35 = D_51 * recip_d13;
    /* (56) A, inverted by cofactors as libjxl's Inv3x3Matrix does */
    const double a[9] = {p_1, p_3, p_5, r_1, r_3, r_5, zeta_15, zeta_35, 1};
    double t[9];
    t[0] = a[4] * a[8] - a[5] * a[7];
    t[1] = a[2] * a[7] - a[1] * a[8];
    t[2] = a[1] * a[5] - a[2] * a[4];
    t[3] = a[5] * a[6] - a[3] * a[8];
    t[4] = a[0] * a[8] - a[2] * a[6];
    t[5] = a[2] * a[3] - a[0] * a[5];
    t[6] = a[3] * a[7] - a[4] * a[6];
    t[7] = a[1] * a[6] - a[0] * a[7];
    t[8] = a[0] * a[4] - a[1] * a[3];
    const double det = a[0] * t[0] + a[1] * t[3] + a[2] * t[6];
    const double inv_det = 1.0 / det;
    for (int i = 0; i < 9; ++i) t[i] *= inv_det;
    const double gamma[3] = {1, radius * radius - sigma * sigma, zeta_15 * rho[0] + zeta_35 * rho[1] + rho[2]};
    double beta[3];
    for (int i = 0; i < 3; ++i) beta[i] = t[i * 3] * gamma[0] + t[i * 3 + 1] * gamma[1] + t[i * 3 + 2] * gamma[2];
    g->radius = (int)radius;
    for (int i = 0; i < 3; ++i) {
        g->n2[i] = (float)(-beta[i] * cos(omega[i] * (radius + 1.0)));   /* (33) */
        g->d1[i] = (float)(-2.0 * cos(omega[i]));
    }
}
