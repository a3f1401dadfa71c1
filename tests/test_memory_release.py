"""Memory of the assembled system: K_hat in CSR (shared by the multigrid set-up), free heap given back."""

import numpy as np
import scipy.sparse as sp

import fecontact as fc
from fecontact.bodies.memory import return_free_memory


def _system():
    return fc.build_model(fc.load_case("cases/patch2d.toml")).problem.system


def test_k_hat_is_sorted_csr_and_its_products_are_those_of_csc():
    system = _system()
    K_hat = system.K_hat
    assert K_hat.format == "csr" and K_hat.has_sorted_indices
    expected = (system.T.T @ system.K @ system.T).tocsc()
    assert (K_hat != expected).nnz == 0
    x = np.random.default_rng(0).standard_normal(K_hat.shape[1])
    # each row summed in column order in both formats: the same to the last bit
    assert np.array_equal(K_hat @ x, expected @ x)
    # the multigrid's CSR operator is K_hat itself, not a copy
    assert np.shares_memory(sp.csr_matrix(K_hat).indices, K_hat.indices)


def test_return_free_memory_changes_no_values():
    a = np.arange(1_000_000, dtype=float)
    garbage = [np.ones(200_000) for _ in range(20)]
    del garbage
    assert isinstance(return_free_memory(), bool)
    assert a[-1] == 999_999.0 and a.sum() == 999_999 * 1_000_000 / 2
