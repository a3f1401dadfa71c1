r"""Compiled integrals of 3D mortar pairs with exact gradients and Hessians (numba).

For a slave triangle ``S`` and a master triangle ``M`` with the master normal
``N = (M_1 - M_0) x (M_2 - M_0)`` (not normalised), every quantity is a
ratio of determinants ``[N, a, b] = N . (a x b)``, which are unchanged by a
projection along ``N``: no in-plane frame is needed.

* The overlap polygon is mapped to the slave's barycentric coordinates
  ``(zeta_1, zeta_2)``.  A slave vertex maps to a corner of the reference
  triangle; a master vertex ``p`` inside the slave to
  ``zeta_1 = [N, S_2 - p, S_0 - p] / D``, ``zeta_2 = [N, S_0 - p, S_1 - p] / D``
  with ``D = [N, S_1 - S_0, S_2 - S_0]``; the crossing of slave edge
  ``S_i S_{i+1}`` with master edge ``M_k M_{k+1}`` to the point at
  ``t = [N, M_k - S_i, M_{k+1} - M_k] / [N, S_{i+1} - S_i, M_{k+1} - M_k]``
  along the slave edge.
* The integrals over the slave surface are ``-2 A_ref`` times the polygon's
  moments ``int 1, zeta_i, zeta_i zeta_k`` in these coordinates (exact
  vertex formulas of a polygon; the polygon runs counter-clockwise about
  ``N``, the slave triangle the other way, hence the sign).
* With the dual functions ``Phi_j = 4 zeta_j - 1`` and ``W_ji = int Phi_j
  zeta_i``, the weighted gap is ``sum_i W_ji h_i`` (``h_i`` the height of
  slave vertex ``i`` above the master plane) and the slip
  ``tau0_jq . sum_i W_ji r_i`` with ``r_i = (x_s - x_s^0)_i - sum_k
  beta_k(S_i) (x_m - x_m^0)_k`` (``beta`` the master barycentric
  coordinates, affine over the plane, so the relative displacement is
  ``sum_i zeta_i r_i``).

The arithmetic is second-order forward differentiation over the 18 vertex
coordinates, one pair at a time, in compiled loops over a workspace of
jets (value, gradient, upper triangle of the Hessian); the compilation is
cached on disk.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["scatter_pairs"]

_JIT = dict(cache=True)
# the helpers' signatures start with the workspace (values, gradients, Hessians, levels); they
# are given so that each is compiled once (slot numbers passed as literals would otherwise
# compile a specialisation for each combination)
_WS = "void(f8[::1], f8[:, ::1], f8[:, :, ::1], i1[::1], "
K = 18          # local variables: slave vertex i coordinate c at 3 i + c, master at 9 + 3 k + c

# workspace slots
_N = 0          # master normal (3)
_NN = 3         # N . N
_INN = 4        # 1 / N . N
_ILEN = 5       # 1 / |N|
_D = 6          # [N, S1 - S0, S2 - S0]
_ID = 7         # 1 / D
_T = 8          # temporaries (8)
_U = 16         # vector a (3)
_V = 19         # vector b (3)
_W = 22         # vector c (3)
_ZX = 25        # polygon vertices, zeta_1 (16)
_ZY = 41        # zeta_2 (16)
_MOM = 57       # A, Mx, My, Mxx, Mxy, Myy
_I = 63         # I0, I1, I2 (int zeta_i)
_II = 66        # int zeta_j zeta_i (3 x 3)
_H = 75         # heights (3)
_BETA = 78      # beta_k(S_i) (3 x 3)
_R = 87         # r_i (3 x 3)
_OUT = 96       # gap_j (3), then R_j (3 x 3)
_SLIP = 108     # slip (j, q) at 2 j + q: tau0_jq . R_j (6)
_SLOTS = 114
_VMAX = 16


@numba.njit(_WS + "f8, i8, i8)", **_JIT)
def _scaled(v, g, h, f, c, a, o):
    """``o = c a``."""
    for i in range(K):
        g[o, i] = c * g[a, i]
    if f[a] == 2:
        for i in range(K):
            for k in range(i, K):
                h[o, i, k] = c * h[a, i, k]
    v[o] = c * v[a]
    f[o] = f[a]


@numba.njit(_WS + "f8, i8)", **_JIT)
def _const(v, g, h, f, c, o):
    """``o = c``: level 0 (its gradient and Hessian vanish; the Hessian is not written)."""
    g[o, :] = 0.0
    v[o] = c
    f[o] = 0


@numba.njit(_WS + "i8, i8, i8)", **_JIT)
def _mul(v, g, h, f, a, b, o):
    """``o = a b`` (``o`` may be ``a`` or ``b``); Hessians known to vanish are not read."""
    va, vb = v[a], v[b]
    if f[a] == 0:
        _scaled(v, g, h, f, va, b, o)
        return
    if f[b] == 0:
        _scaled(v, g, h, f, vb, a, o)
        return
    ha, hb = f[a] == 2, f[b] == 2
    for i in range(K):
        gai, gbi = g[a, i], g[b, i]
        if ha and hb:
            for k in range(i, K):
                h[o, i, k] = va * h[b, i, k] + vb * h[a, i, k] + gai * g[b, k] + gbi * g[a, k]
        elif hb:
            for k in range(i, K):
                h[o, i, k] = va * h[b, i, k] + gai * g[b, k] + gbi * g[a, k]
        elif ha:
            for k in range(i, K):
                h[o, i, k] = vb * h[a, i, k] + gai * g[b, k] + gbi * g[a, k]
        else:
            for k in range(i, K):
                h[o, i, k] = gai * g[b, k] + gbi * g[a, k]
    for i in range(K):
        g[o, i] = va * g[b, i] + vb * g[a, i]
    v[o] = va * vb
    f[o] = 2


@numba.njit(_WS + "f8, i8, f8, i8, f8, i8)", **_JIT)
def _lin(v, g, h, f, ca, a, cb, b, c0, o):
    """``o = ca a + cb b + c0``."""
    la = f[a] if ca != 0.0 else 0
    lb = f[b] if cb != 0.0 else 0
    ha, hb = la == 2, lb == 2
    for i in range(K):
        g[o, i] = ca * g[a, i] + cb * g[b, i]
        if ha and hb:
            for k in range(i, K):
                h[o, i, k] = ca * h[a, i, k] + cb * h[b, i, k]
        elif ha:
            for k in range(i, K):
                h[o, i, k] = ca * h[a, i, k]
        elif hb:
            for k in range(i, K):
                h[o, i, k] = cb * h[b, i, k]
    v[o] = ca * v[a] + cb * v[b] + c0
    f[o] = max(la, lb)


@numba.njit(_WS + "i8, i8, f8, f8, f8)", **_JIT)
def _unary(v, g, h, f, a, o, fa, df, d2f):
    """``o = F(a)`` with ``F = fa``, ``F' = df``, ``F'' = d2f`` at ``a``."""
    if f[a] == 0:
        _const(v, g, h, f, fa, o)
        return
    ha = f[a] == 2
    for i in range(K):
        gai = g[a, i]
        if ha:
            for k in range(i, K):
                h[o, i, k] = df * h[a, i, k] + d2f * gai * g[a, k]
        else:
            for k in range(i, K):
                h[o, i, k] = d2f * gai * g[a, k]
    for i in range(K):
        g[o, i] = df * g[a, i]
    v[o] = fa
    f[o] = 2


@numba.njit(_WS + "f8[::1], i8, i8, i8)", **_JIT)
def _diff(v, g, h, f, x, i, j, o):
    """``o = x_i - x_j`` of two local variables."""
    _const(v, g, h, f, x[i] - x[j], o)
    g[o, i] = 1.0
    g[o, j] = -1.0
    f[o] = 1


@numba.njit(_WS + "f8[::1], i8, i8, i8)", **_JIT)
def _vec_diff(v, g, h, f, x, p, q, o):
    """The three jets ``x_p - x_q`` of the vertices whose first variables are ``p`` and ``q``."""
    for c in range(3):
        _diff(v, g, h, f, x, p + c, q + c, o + c)


@numba.njit(_WS + "i8, i8, i8)", **_JIT)
def _det(v, g, h, f, a, b, o):
    """``o = [N, a, b] = N . (a x b)`` of the 3-vectors at slots ``a`` and ``b``."""
    t, s = _T + 6, _T + 7
    for c in range(3):
        c1, c2 = (c + 1) % 3, (c + 2) % 3
        _mul(v, g, h, f, a + c1, b + c2, t)
        _mul(v, g, h, f, a + c2, b + c1, s)
        _lin(v, g, h, f, 1.0, t, -1.0, s, 0.0, t)
        if c == 0:
            _mul(v, g, h, f, _N, t, o)
        else:
            _mul(v, g, h, f, _N + c, t, t)
            _lin(v, g, h, f, 1.0, o, 1.0, t, 0.0, o)


@numba.njit(**_JIT)
def _pair(v, g, h, f, x, x0, lines, count, tangent0):
    """Fill the output slots of one pair (coordinates ``x``, start-of-step ``x0``, shape (18,))."""
    S, M = 0, 9
    # master normal and its inverses
    _vec_diff(v, g, h, f, x, M + 3, M, _U)
    _vec_diff(v, g, h, f, x, M + 6, M, _V)
    for c in range(3):
        c1, c2 = (c + 1) % 3, (c + 2) % 3
        _mul(v, g, h, f, _U + c1, _V + c2, _T)
        _mul(v, g, h, f, _U + c2, _V + c1, _T + 1)
        _lin(v, g, h, f, 1.0, _T, -1.0, _T + 1, 0.0, _N + c)
    _mul(v, g, h, f, _N, _N, _NN)
    for c in range(1, 3):
        _mul(v, g, h, f, _N + c, _N + c, _T)
        _lin(v, g, h, f, 1.0, _NN, 1.0, _T, 0.0, _NN)
    nn = v[_NN]
    _unary(v, g, h, f, _NN, _INN, 1.0 / nn, -1.0 / nn**2, 2.0 / nn**3)
    _unary(v, g, h, f, _NN, _ILEN, nn**-0.5, -0.5 * nn**-1.5, 0.75 * nn**-2.5)
    # slave determinant
    _vec_diff(v, g, h, f, x, S + 3, S, _U)
    _vec_diff(v, g, h, f, x, S + 6, S, _V)
    _det(v, g, h, f, _U, _V, _D)
    d = v[_D]
    _unary(v, g, h, f, _D, _ID, 1.0 / d, -1.0 / d**2, 2.0 / d**3)
    # polygon vertices in slave coordinates (zeta_1, zeta_2)
    n = count
    for k in range(n):
        l1, l2 = lines[k, 0], lines[k, 1]
        zx, zy = _ZX + k, _ZY + k
        if l1 < 3 and l2 < 3:                       # slave vertex l2
            _const(v, g, h, f, 1.0 if l2 == 1 else 0.0, zx)
            _const(v, g, h, f, 1.0 if l2 == 2 else 0.0, zy)
        elif l1 >= 3 and l2 >= 3:                   # master vertex l2 - 3 inside the slave
            p = M + 3 * (l2 - 3)
            _vec_diff(v, g, h, f, x, S, p, _U)
            _vec_diff(v, g, h, f, x, S + 3, p, _V)
            _vec_diff(v, g, h, f, x, S + 6, p, _W)
            _det(v, g, h, f, _W, _U, zx)
            _mul(v, g, h, f, zx, _ID, zx)
            _det(v, g, h, f, _U, _V, zy)
            _mul(v, g, h, f, zy, _ID, zy)
        else:                                       # slave edge l1 crossing master edge l2 - 3
            i, kk = l1, l2 - 3
            P, Q = S + 3 * i, M + 3 * kk
            _vec_diff(v, g, h, f, x, Q, P, _U)
            _vec_diff(v, g, h, f, x, M + 3 * ((kk + 1) % 3), Q, _V)
            _vec_diff(v, g, h, f, x, S + 3 * ((i + 1) % 3), P, _W)
            _det(v, g, h, f, _U, _V, _T)
            _det(v, g, h, f, _W, _V, _T + 1)
            _unary(v, g, h, f, _T + 1, _T + 1, 1.0 / v[_T + 1], -1.0 / v[_T + 1] ** 2,
                   2.0 / v[_T + 1] ** 3)
            _mul(v, g, h, f, _T, _T + 1, _T)           # t along the slave edge
            if i == 0:                              # (t, 0)
                _lin(v, g, h, f, 1.0, _T, 0.0, _T, 0.0, zx)
                _const(v, g, h, f, 0.0, zy)
            elif i == 1:                            # (1 - t, t)
                _lin(v, g, h, f, -1.0, _T, 0.0, _T, 1.0, zx)
                _lin(v, g, h, f, 1.0, _T, 0.0, _T, 0.0, zy)
            else:                                   # (0, 1 - t)
                _const(v, g, h, f, 0.0, zx)
                _lin(v, g, h, f, -1.0, _T, 0.0, _T, 1.0, zy)
    # polygon moments: A, Mx, My, Mxx, Mxy, Myy (x = zeta_1, y = zeta_2)
    for q in range(6):
        _const(v, g, h, f, 0.0, _MOM + q)
    c_, s_, u_ = _T, _T + 1, _T + 2
    for k in range(n):
        k1 = (k + 1) % n
        xa, ya, xb, yb = _ZX + k, _ZY + k, _ZX + k1, _ZY + k1
        _mul(v, g, h, f, xa, yb, _T + 3)               # xa yb
        _mul(v, g, h, f, xb, ya, _T + 4)               # xb ya
        _lin(v, g, h, f, 1.0, _T + 3, -1.0, _T + 4, 0.0, c_)
        _lin(v, g, h, f, 1.0, _MOM, 1.0, c_, 0.0, _MOM)
        for a_, b_, m_ in ((xa, xb, 1), (ya, yb, 2)):
            _lin(v, g, h, f, 1.0, a_, 1.0, b_, 0.0, s_)
            _mul(v, g, h, f, c_, s_, u_)
            _lin(v, g, h, f, 1.0, _MOM + m_, 1.0, u_, 0.0, _MOM + m_)
            # a^2 + a b + b^2 = (a + b)^2 - a b
            _mul(v, g, h, f, s_, s_, s_)
            _mul(v, g, h, f, a_, b_, u_)
            _lin(v, g, h, f, 1.0, s_, -1.0, u_, 0.0, s_)
            _mul(v, g, h, f, c_, s_, u_)
            _lin(v, g, h, f, 1.0, _MOM + 2 * m_ + 1, 1.0, u_, 0.0, _MOM + 2 * m_ + 1)
        # 2 xa ya + xa yb + xb ya + 2 xb yb = (2 xa + xb) ya + (xa + 2 xb) yb
        _lin(v, g, h, f, 2.0, xa, 1.0, xb, 0.0, s_)
        _mul(v, g, h, f, s_, ya, s_)
        _lin(v, g, h, f, 1.0, xa, 2.0, xb, 0.0, u_)
        _mul(v, g, h, f, u_, yb, u_)
        _lin(v, g, h, f, 1.0, s_, 1.0, u_, 0.0, s_)
        _mul(v, g, h, f, c_, s_, u_)
        _lin(v, g, h, f, 1.0, _MOM + 4, 1.0, u_, 0.0, _MOM + 4)
    A, Mx, My, Mxx, Mxy, Myy = _MOM, _MOM + 1, _MOM + 2, _MOM + 3, _MOM + 4, _MOM + 5
    _lin(v, g, h, f, 0.5, A, 0.0, A, 0.0, A)
    _lin(v, g, h, f, 1.0 / 6.0, Mx, 0.0, A, 0.0, Mx)
    _lin(v, g, h, f, 1.0 / 6.0, My, 0.0, A, 0.0, My)
    _lin(v, g, h, f, 1.0 / 12.0, Mxx, 0.0, A, 0.0, Mxx)
    _lin(v, g, h, f, 1.0 / 12.0, Myy, 0.0, A, 0.0, Myy)
    _lin(v, g, h, f, 1.0 / 24.0, Mxy, 0.0, A, 0.0, Mxy)
    # int zeta_i and int zeta_j zeta_i (zeta_0 = 1 - x - y)
    _lin(v, g, h, f, 1.0, A, -1.0, Mx, 0.0, _T)
    _lin(v, g, h, f, 1.0, _T, -1.0, My, 0.0, _I)
    _lin(v, g, h, f, 1.0, Mx, 0.0, Mx, 0.0, _I + 1)
    _lin(v, g, h, f, 1.0, My, 0.0, My, 0.0, _I + 2)
    _lin(v, g, h, f, 1.0, _I, -1.0, Mx, 0.0, _T)               # I00 = I0 - I01 - I02
    _lin(v, g, h, f, 1.0, Mx, -1.0, Mxx, 0.0, _II + 1)
    _lin(v, g, h, f, 1.0, _II + 1, -1.0, Mxy, 0.0, _II + 1)    # I01 = Mx - Mxx - Mxy
    _lin(v, g, h, f, 1.0, My, -1.0, Mxy, 0.0, _II + 2)
    _lin(v, g, h, f, 1.0, _II + 2, -1.0, Myy, 0.0, _II + 2)    # I02 = My - Mxy - Myy
    _lin(v, g, h, f, 1.0, _I, -1.0, _II + 1, 0.0, _II)
    _lin(v, g, h, f, 1.0, _II, -1.0, _II + 2, 0.0, _II)
    _lin(v, g, h, f, 1.0, _II + 1, 0.0, A, 0.0, _II + 3)
    _lin(v, g, h, f, 1.0, Mxx, 0.0, A, 0.0, _II + 4)
    _lin(v, g, h, f, 1.0, Mxy, 0.0, A, 0.0, _II + 5)
    _lin(v, g, h, f, 1.0, _II + 2, 0.0, A, 0.0, _II + 6)
    _lin(v, g, h, f, 1.0, Mxy, 0.0, A, 0.0, _II + 7)
    _lin(v, g, h, f, 1.0, Myy, 0.0, A, 0.0, _II + 8)
    # dual weights W_ji = 4 I_ji - I_i, in place
    for j in range(3):
        for i in range(3):
            _lin(v, g, h, f, 4.0, _II + 3 * j + i, -1.0, _I + i, 0.0, _II + 3 * j + i)
    # heights of the slave vertices above the master plane
    for i in range(3):
        _vec_diff(v, g, h, f, x, S + 3 * i, M, _U)
        _mul(v, g, h, f, _N, _U, _T)
        for c in range(1, 3):
            _mul(v, g, h, f, _N + c, _U + c, _T + 1)
            _lin(v, g, h, f, 1.0, _T, 1.0, _T + 1, 0.0, _T)
        _mul(v, g, h, f, _T, _ILEN, _H + i)
    # master coordinates of the slave vertices and the vertices' relative displacements
    for i in range(3):
        p = S + 3 * i
        _vec_diff(v, g, h, f, x, M, p, _U)
        _vec_diff(v, g, h, f, x, M + 3, p, _V)
        _vec_diff(v, g, h, f, x, M + 6, p, _W)
        b = _BETA + 3 * i
        _det(v, g, h, f, _V, _W, b)
        _mul(v, g, h, f, b, _INN, b)
        _det(v, g, h, f, _W, _U, b + 1)
        _mul(v, g, h, f, b + 1, _INN, b + 1)
        _lin(v, g, h, f, -1.0, b, -1.0, b + 1, 1.0, b + 2)
        for c in range(3):
            r = _R + 3 * i + c
            _const(v, g, h, f, x[p + c] - x0[p + c], r)
            g[r, p + c] = 1.0
            f[r] = 1
            for kk in range(3):
                q = M + 3 * kk + c
                _const(v, g, h, f, x[q] - x0[q], _T)
                g[_T, q] = 1.0
                f[_T] = 1
                _mul(v, g, h, f, b + kk, _T, _T)
                _lin(v, g, h, f, 1.0, r, -1.0, _T, 0.0, r)
    # weighted gaps and weighted relative displacements R_j = sum_i W_ji r_i
    for j in range(3):
        for i in range(3):
            w = _II + 3 * j + i
            _mul(v, g, h, f, w, _H + i, _T)
            if i == 0:
                _lin(v, g, h, f, 1.0, _T, 0.0, _T, 0.0, _OUT + j)
            else:
                _lin(v, g, h, f, 1.0, _OUT + j, 1.0, _T, 0.0, _OUT + j)
            for c in range(3):
                o = _OUT + 3 + 3 * j + c
                _mul(v, g, h, f, w, _R + 3 * i + c, _T)
                if i == 0:
                    _lin(v, g, h, f, 1.0, _T, 0.0, _T, 0.0, o)
                else:
                    _lin(v, g, h, f, 1.0, o, 1.0, _T, 0.0, o)
    # slips tau0_jq . R_j
    for j in range(3):
        R = _OUT + 3 + 3 * j
        for q in range(2):
            o = _SLIP + 2 * j + q
            _lin(v, g, h, f, tangent0[j, q, 0], R, tangent0[j, q, 1], R + 1, 0.0, o)
            _lin(v, g, h, f, 1.0, o, tangent0[j, q, 2], R + 2, 0.0, o)


@numba.njit(**_JIT)
def _load(x, x0, slave, master, slave0, master0, e):
    """The 18 current and start-of-step coordinates of pair ``e``."""
    for i in range(3):
        for c in range(3):
            x[3 * i + c] = slave[e, i, c]
            x[9 + 3 * i + c] = master[e, i, c]
            x0[3 * i + c] = slave0[e, i, c]
            x0[9 + 3 * i + c] = master0[e, i, c]


@numba.njit(**_JIT)
def _workspace():
    return (np.zeros(_SLOTS), np.zeros((_SLOTS, K)), np.zeros((_SLOTS, K, K)),
            np.zeros(_SLOTS, dtype=np.int8), np.empty(K), np.empty(K))


@numba.njit(_WS + "i8, f8, i8, i8, i8[::1], f8[:, ::1], f8[:, :, ::1], f8[:, :, :, ::1])", **_JIT)
def _scatter(v, g, h, f, s, fac, r, o, idx, value, grad, hess):
    """Add ``fac`` times the jet at slot ``s`` to output ``o`` of row ``r``, variable ``i`` at ``idx[i]``."""
    value[r, o] += fac * v[s]
    for i in range(K):
        grad[r, o, idx[i]] += fac * g[s, i]
    if f[s] == 2:
        for i in range(K):
            a = idx[i]
            hess[r, o, a, a] += fac * h[s, i, i]
            for k in range(i + 1, K):
                b, t = idx[k], fac * h[s, i, k]
                hess[r, o, a, b] += t
                hess[r, o, b, a] += t


@numba.njit(**_JIT)
def scatter_pairs(slave, master, slave0, master0, lines, count, tangent0, ref_area, rows, index,
                  gap, d_gap, h_gap, slip, d_slip, h_slip, weight, normal):
    """Add the weighted gaps and slips of facet pairs, with their derivatives, into rows.

    Each pair's contributions go straight into the rows of its slave vertices
    (no per-pair arrays of derivatives): the gap of slave vertex ``j`` of
    pair ``e`` is added to row ``rows[j, e]``, its local variable ``i`` to
    the row's variable ``index[j, e, i]``.

    Parameters
    ----------
    slave, master, slave0, master0 : ndarray, shape (p, 3, 3)
        Current and start-of-step vertices of each pair's slave and master triangles.
    lines : ndarray of int, shape (p, V, 2)
        Polygon vertices as pairs of edge lines
        (:func:`fecontact.contact.mortar3d.clip_polygons`).
    count : ndarray of int, shape (p,)
        Number of polygon vertices.
    tangent0 : ndarray, shape (p, 3, 2, 3)
        Slip directions of the slave vertices.
    ref_area : ndarray, shape (p,)
        Reference area of the slave triangle.
    rows : ndarray of int, shape (3, p)
    index : ndarray of int, shape (3, p, 18)
    gap, d_gap, h_gap : ndarray, shapes (m, 1), (m, 1, k), (m, 1, k, k)
        Weighted gaps and their derivatives, added to in place.
    slip, d_slip, h_slip : ndarray, shapes (m, 2), (m, 2, k), (m, 2, k, k)
    weight : ndarray, shape (m,)
        ``int N_j``, added to.
    normal : ndarray, shape (m, 3)
        ``int N_j`` times the unit master normal, added to.
    """
    v, g, h, f, x, x0 = _workspace()
    for e in range(slave.shape[0]):
        _load(x, x0, slave, master, slave0, master0, e)
        _pair(v, g, h, f, x, x0, lines[e], count[e], tangent0[e])
        fac = -2.0 * ref_area[e]
        for j in range(3):
            r, idx, w = rows[j, e], index[j, e], fac * v[_I + j]
            weight[r] += w
            for c in range(3):
                normal[r, c] += w * v[_N + c] * v[_ILEN]
            _scatter(v, g, h, f, _OUT + j, fac, r, 0, idx, gap, d_gap, h_gap)
            for q in range(2):
                _scatter(v, g, h, f, _SLIP + 2 * j + q, fac, r, q, idx, slip, d_slip, h_slip)
