"""Worked examples for :class:`llc.LinearLayout`: the seeds, Triton's unit tests, error paths.

Triton's cases come from ``unittest/Tools/LinearLayoutTest.cpp`` (the test name is given in a
comment) and from probing the Python binding of triton 3.9 (``invert_and_compose``'s identity
heuristic).
"""

from __future__ import annotations

import ast
import inspect
import itertools
from typing import ClassVar

import numpy as np
import pytest

import llc.f2
import llc.linear_layout
from llc import LayoutError, LinearLayout

LL = LinearLayout
identity_1d = LinearLayout.identity_1d
zeros_1d = LinearLayout.zeros_1d


def make(bases, out_dims, surjective: bool = True) -> LinearLayout:
    """Triton's ``LinearLayout(bases, outDims[, requireSurjective])`` constructor."""
    if out_dims and isinstance(out_dims[0], tuple):
        return LL(list(bases), list(out_dims), require_surjective=surjective)
    return LL(list(bases), list(out_dims))


# ==================================================================================== seeds
class TestSeed000MaskExample:
    """Seed 000: o_i is the parity of b & m_i, with b = (b2, b1, b0)."""

    MASKS: ClassVar = [(1, 0, 1), (0, 1, 1), (1, 1, 1)]  # m0, m1, m2 over (b2, b1, b0)

    def layout(self) -> LinearLayout:
        # Column j (input bit b_j) has bit i set when m_i selects b_j; b_j sits at index 2 - j.
        columns = [sum(m[2 - j] << i for i, m in enumerate(self.MASKS)) for j in range(3)]
        return LL.from_bases([("b", [[c] for c in columns])], ["o"])

    def test_bases_are_the_images_of_powers_of_two(self) -> None:
        # b0 reaches o0, o1, o2; b1 reaches o1, o2; b2 reaches o0, o2.
        assert self.layout().bases == [("b", [[0b111], [0b110], [0b101]])]

    def test_all_eight_outputs_match_the_formula(self) -> None:
        layout = self.layout()
        everything = layout.apply_all()["o"]
        for b in range(8):
            b0, b1, b2 = b & 1, (b >> 1) & 1, (b >> 2) & 1
            o0, o1, o2 = b2 ^ b0, b1 ^ b0, b2 ^ b1 ^ b0
            expected = o0 | (o1 << 1) | (o2 << 2)
            assert layout.apply({"b": b}) == {"o": expected}
            assert everything[b] == expected

    def test_matrix_is_the_seeds_matrix(self) -> None:
        # llc's columns run b0, b1, b2; the seed writes them b2, b1, b0.
        seed_matrix = [[1, 0, 1], [0, 1, 1], [1, 1, 1]]
        assert self.layout().matrix()[:, ::-1].tolist() == seed_matrix

    def test_it_is_invertible(self) -> None:
        layout = self.layout()
        assert layout.is_invertible()
        inverse = layout.invert()
        for b in range(8):
            assert inverse.apply(layout.apply({"b": b})) == {"b": b}


class TestSeed000XorSwizzle:
    """Seed 000: a 32x32 matrix in shared memory at (row=r, bank=r^c)."""

    @staticmethod
    def swizzled() -> LinearLayout:
        return LL.from_bases(
            [("r", [[1 << i, 1 << i] for i in range(5)]), ("c", [[0, 1 << i] for i in range(5)])],
            ["row", "bank"],
        )

    def test_apply_is_row_and_xor(self) -> None:
        layout = self.swizzled()
        for r, c in itertools.product(range(32), repeat=2):
            assert layout.apply({"r": r, "c": c}) == {"row": r, "bank": r ^ c}

    def test_injective_and_invertible(self) -> None:
        layout = self.swizzled()
        assert layout.is_injective() and layout.is_surjective() and layout.is_invertible()
        inverse = layout.invert()
        for row, bank in itertools.product(range(32), repeat=2):
            assert inverse.apply({"row": row, "bank": bank}) == {"r": row, "c": row ^ bank}

    def test_rows_and_columns_hit_32_distinct_banks(self) -> None:
        banks = self.swizzled().apply_all()["bank"].reshape(32, 32)  # [c, r]: r is minor
        for fixed in range(32):
            assert len(set(banks[fixed, :].tolist())) == 32  # one column c, every row r
            assert len(set(banks[:, fixed].tolist())) == 32  # one row r, every column c

    def test_row_major_layout_has_column_bank_conflicts(self) -> None:
        naive = identity_1d(32, "c", "bank") * identity_1d(32, "r", "row")
        banks = naive.apply_all()["bank"].reshape(32, 32)  # [r, c]: c is minor
        assert len(set(banks[5, :].tolist())) == 32  # a row is conflict-free...
        assert len(set(banks[:, 5].tolist())) == 1  # ...but a column sits in one bank


class TestSeed001RegisterThreadWarp:
    """Seed 001 (the paper's slides): L maps (Reg, Thr, Wrp) to tensor location (i, j).

    The slide's matrix has rows j0..j3, i0..i2 and columns reg0, reg1, thr0..thr3, wrp0, so the
    out-dims are ``j`` (minor) then ``i``.
    """

    SLIDE_MATRIX: ClassVar = [
        [1, 0, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0],
        [0, 1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 0],
        [0, 0, 0, 0, 0, 0, 1],
    ]
    # (i, j) -> (register, thread, warp), from the slide's table
    TABLE: ClassVar = {
        (0, 0): (0, 0, 0),
        (0, 1): (1, 0, 0),
        (0, 2): (0, 1, 0),
        (0, 3): (1, 1, 0),
        (1, 0): (2, 0, 0),
        (1, 1): (3, 0, 0),
        (2, 2): (0, 9, 0),
        (2, 3): (1, 9, 0),
        (3, 2): (2, 9, 0),
        (3, 3): (3, 9, 0),
    }

    @staticmethod
    def layout() -> LinearLayout:
        return LL.from_bases(
            [
                ("reg", [[1, 0], [0, 1]]),
                ("thr", [[2, 0], [4, 0], [8, 0], [0, 2]]),
                ("wrp", [[0, 4]]),
            ],
            ["j", "i"],
        )

    def test_matrix_is_the_slide_matrix(self) -> None:
        assert self.layout().matrix().tolist() == self.SLIDE_MATRIX
        assert self.layout().get_matrix_view() == self.SLIDE_MATRIX

    def test_table_rows(self) -> None:
        layout = self.layout()
        inverse = layout.invert()
        for (i, j), (r, t, w) in self.TABLE.items():
            assert layout.apply({"reg": r, "thr": t, "wrp": w}) == {"j": j, "i": i}
            assert inverse.apply({"j": j, "i": i}) == {"reg": r, "thr": t, "wrp": w}

    def test_w_equals_l_times_v(self) -> None:
        # v = (2, 0, 0) is input bit 1; W is column 1 of L, i.e. location (j=0, i=1).
        layout = self.layout()
        v = np.zeros(7, dtype=np.uint8)
        v[1] = 1
        w = layout.matrix() @ v % 2
        assert w.tolist() == [0, 0, 0, 0, 1, 0, 0]
        assert layout.apply({"reg": 2, "thr": 0, "wrp": 0}) == {"j": 0, "i": 1}

    def test_broadcast_slide(self) -> None:
        # Threads 4 and 8 hold the same values as thread 0: L(r1, t5) == L(r1, t1).
        layout = LL.from_bases(
            [("reg", [[1, 0], [0, 1]]), ("thr", [[2, 0], [4, 0], [0, 0], [0, 0]])], ["j", "i"]
        )
        assert layout.matrix().tolist() == [
            [1, 0, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0],
            [0, 0, 0, 1, 0, 0],
            [0, 1, 0, 0, 0, 0],
        ]
        assert layout.apply({"reg": 1, "thr": 5}) == layout.apply({"reg": 1, "thr": 1})
        assert layout.get_free_variable_masks() == {"reg": 0, "thr": 0b1100}
        assert layout.is_surjective() and not layout.is_injective()

    def test_intra_thread_conversion_is_a_register_permutation(self) -> None:
        # L_A and L_B agree on threads and differ in register order: L_B^-1 o L_A is the
        # identity on threads and r_A^1 -> r_B^2, r_A^2 -> r_B^1 on registers.
        thr = ("thr", [[2, 0], [4, 0], [8, 0], [0, 2]])
        la = LL.from_bases([("reg", [[1, 0], [0, 1]]), thr], ["j", "i"])
        lb = LL.from_bases([("reg", [[0, 1], [1, 0]]), thr], ["j", "i"])
        cvt = la.invert_and_compose(lb)
        assert cvt.is_trivial_over(["thr"])
        assert cvt.quotient(["thr"]) == LL.from_bases([("reg", [[2], [1]])], ["reg"])
        swap = {0: 0, 1: 2, 2: 1, 3: 3}
        for r, t in itertools.product(range(4), range(16)):
            assert cvt.apply({"reg": r, "thr": t}) == {"reg": swap[r], "thr": t}
            assert lb.apply(cvt.apply({"reg": r, "thr": t})) == la.apply({"reg": r, "thr": t})


class TestSeed003Products:
    def test_l_of_1_3_is_1_2(self) -> None:
        layout = LL.from_bases([("t", [[1, 1], [2, 2]]), ("w", [[0, 1], [0, 2]])], ["x", "y"])
        assert layout.apply({"t": 1, "w": 3}) == {"x": 1, "y": 2}
        bases = {("t", 1): (1, 1), ("t", 2): (2, 2), ("w", 1): (0, 1), ("w", 2): (0, 2)}
        for t, w in itertools.product(range(4), repeat=2):
            x = y = 0
            for (dim, bit), (bx, by) in bases.items():
                if (t if dim == "t" else w) & bit:
                    x, y = x ^ bx, y ^ by
            assert layout.apply({"t": t, "w": w}) == {"x": x, "y": y}

    def test_x_div_4(self) -> None:
        div4 = zeros_1d(4, "i", "o") * identity_1d(2, "i", "o")
        assert [div4.apply({"i": x})["o"] for x in range(8)] == [x // 4 for x in range(8)]

    def test_x_div_2_from_the_header(self) -> None:
        div2 = zeros_1d(2, "i", "o") * identity_1d(4, "i", "o")
        assert [div2.apply({"i": x})["o"] for x in range(8)] == [x // 2 for x in range(8)]

    def test_x_mod_4(self) -> None:
        mod4 = identity_1d(4, "i", "o") * zeros_1d(2, "i", "o")
        assert [mod4.apply({"i": x})["o"] for x in range(8)] == [x % 4 for x in range(8)]
        assert mod4.out_dims == [("o", 4)]

    def test_mod_and_div_into_two_out_dims(self) -> None:
        layout = identity_1d(4, "i", "o1") * identity_1d(8, "i", "o2")
        assert layout.get_out_dim_names() == ["o1", "o2"]
        for x in range(32):
            assert layout.apply({"i": x}) == {"o1": x % 4, "o2": x // 4}

    def test_disjoint_names_concatenate(self) -> None:
        l1 = LL.from_bases([("i1", [[2], [1], [4]])], ["o1"])
        l2 = LL.from_bases([("i2", [[1, 0], [3, 1], [2, 0]])], ["o2", "o3"])
        prod = l1 * l2
        assert prod.get_in_dim_names() == ["i1", "i2"]
        assert prod.get_out_dim_names() == ["o1", "o2", "o3"]
        for x1, x2 in itertools.product(range(8), range(8)):
            assert prod.apply({"i1": x1, "i2": x2}) == {
                **l1.apply({"i1": x1}),
                **l2.apply({"i2": x2}),
            }

    def test_shared_in_dim_puts_the_first_factor_in_the_low_bits(self) -> None:
        l1 = LL.from_bases([("i", [[2], [1]])], ["o1"])
        l2 = LL.from_bases([("i", [[1], [4], [2]])], ["o2"])
        prod = l1 * l2
        assert prod.in_dims == {"i": 32}
        for x in range(32):
            low, high = x % 4, x // 4
            assert prod.apply({"i": x}) == {**l1.apply({"i": low}), **l2.apply({"i": high})}

    def test_shared_out_dim_shifts_the_second_factor(self) -> None:
        prod = identity_1d(4, "a", "o") * identity_1d(2, "b", "o")
        assert prod.bases == [("a", [[1], [2]]), ("b", [[4]])]
        assert prod.out_dims == [("o", 8)]

    def test_inferred_sizes_and_surjectivity(self) -> None:
        bases = [("in1", [[1, 0], [5, 1], [2, 2]])]
        # The seed infers sizes 8 and 4, but 3 bases cannot cover 32 outputs: Triton's
        # surjectivity check rejects the seed's first example.
        with pytest.raises(LayoutError, match="not surjective"):
            LL.from_bases(bases, ["out1", "out2"])
        layout = LL(bases, ["out1", "out2"], require_surjective=False)
        assert layout.out_dims == [("out1", 8), ("out2", 4)]
        ok = LL.from_bases(
            [("in1", [[0, 1], [0, 2]]), ("in2", [[0, 4], [0, 8], [1, 1]])], ["out1", "out2"]
        )
        assert ok.out_dims == [("out1", 2), ("out2", 16)] and ok.is_surjective()
        padded = LL.from_bases([("in1", [[1], [4]])], ["out1"], [32], require_surjective=False)
        assert padded.out_dims == [("out1", 32)] and not padded.is_surjective()


# ================================================================ Triton's LinearLayoutTest
class TestTritonConstruction:
    def test_empty(self) -> None:  # Empty
        layout = LL.empty()
        assert layout.bases == [] and layout.get_in_dim_names() == []
        assert layout.get_out_dim_names() == []

    def test_identity_1d(self) -> None:  # Identity1D
        layout = identity_1d(32, "testIns", "testOuts")
        assert layout == make([("testIns", [[1], [2], [4], [8], [16]])], ["testOuts"])
        assert layout.get_in_dim_size_log2("testIns") == 5
        assert layout.get_out_dim_size_log2("testOuts") == 5

    def test_identity_1d_size_1(self) -> None:  # Identity1DSize1
        layout = identity_1d(1, "testIns", "testOuts")
        assert layout == make([("testIns", [])], ["testOuts"])
        assert layout.get_in_dim_size_log2("testIns") == 0
        assert layout.get_out_dim_size_log2("testOuts") == 0

    def test_zeros_1d(self) -> None:  # Zeros1D
        assert zeros_1d(32, "ins", "outs") == make([("ins", [[0]] * 5)], ["outs"])

    def test_strided_1d(self) -> None:
        layout = LL.strided_1d(4, 2, "i", "o")
        assert layout.bases == [("i", [[2], [4]])] and layout.out_dims == [("o", 8)]
        assert not layout.is_surjective()

    def test_get_out_dim_size_log2(self) -> None:  # GetOutDimSizeLog2
        layout = make([("in0", [[0], [0], [0]]), ("in1", [[1], [2]])], ["dim0"])
        assert layout.get_out_dim_size_log2("dim0") == 2

    def test_construct_large_layout(self) -> None:  # ConstructLargeLayout
        layout = make([("in", [[1 << i] for i in range(25)])], ["out"])
        assert layout.is_invertible()

    def test_apply(self) -> None:  # Apply
        layout = make(
            [("in1", [[4, 2], [2, 1], [1, 0]]), ("in2", [[1, 2], [2, 1]])],
            [("out1", 8), ("out2", 4)],
            surjective=False,
        )
        assert layout.apply({"in1": 0, "in2": 0}) == {"out1": 0, "out2": 0}
        assert layout.apply({"in2": 0, "in1": 1}) == {"out1": 4, "out2": 2}
        assert layout.apply({"in2": 1, "in1": 0}) == {"out1": 1, "out2": 2}
        assert list(layout.apply([("in2", 1), ("in1", 0)])) == ["out1", "out2"]

    def test_equals_checks_out_dim_sizes(self) -> None:  # EqualsChecksOutDimSizes
        wide = make([("in", [[1], [2]])], [("out", 8)], surjective=False)
        assert identity_1d(4, "in", "out") != wide
        assert identity_1d(4, "in", "out").equal_ignoring_out_dim_sizes(wide)

    def test_str_is_tritons_to_string(self) -> None:  # EmptyToString and toString
        assert str(LL.empty()) == "(empty layout)"
        assert str(LL.from_bases([], ["o"], [4], require_surjective=False)) == (
            "(empty layout with out-dims [o (size 4)])"
        )
        layout = make([("register", [[1, 0], [2, 0]]), ("lane", [])], ["dim0", "dim1"])
        assert str(layout) == (
            " - register=1 -> (1, 0)\n"
            "   register=2 -> (2, 0)\n"
            " - lane is a size 1 dimension\n"
            "where out dims are: [dim0 (size 4), dim1 (size 1)]"
        )


class TestTritonProduct:
    def test_multiply_identity(self) -> None:  # MultiplyIdentity
        prod = identity_1d(16, "in", "out") * identity_1d(32, "in", "out")
        assert prod == make([("in", [[1 << i] for i in range(9)])], ["out"])

    def test_multiply_disjoint(self) -> None:  # MultiplyDisjoint
        prod = identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")
        assert prod == make(
            [
                ("in1", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
                ("in2", [[0, 1], [0, 2], [0, 4], [0, 8]]),
            ],
            ["out1", "out2"],
        )

    def test_multiply_by_empty(self) -> None:  # MultiplyByEmpty
        assert LL.empty() * identity_1d(32, "in", "out") == identity_1d(32, "in", "out")
        assert identity_1d(32, "in", "out") * LL.empty() == identity_1d(32, "in", "out")

    def test_multiply_by_zeros(self) -> None:  # MultiplyByZeros
        prod = identity_1d(8, "in", "out") * zeros_1d(16, "in", "out")
        assert prod == make([("in", [[1], [2], [4], [0], [0], [0], [0]])], ["out"])

    def test_multiply_zeros_by_degenerate(self) -> None:  # MultiplyZerosByDegenerate
        prod = zeros_1d(16, "in", "out1") * make([("in", [])], ["out2"])
        assert prod == make([("in", [[0, 0]] * 4)], ["out1", "out2"])

    def test_multiply_empty_identity_and_zeros(self) -> None:  # MultiplyEmptyIdentityAndZeros
        prod = identity_1d(0, "in", "out") * zeros_1d(4, "in", "out")
        assert prod == make([("in", [[0], [0]])], ["out"])

    def test_multiply_overlapping(self) -> None:  # MultiplyOverlapping
        prod = identity_1d(4, "in", "out1") * identity_1d(8, "in", "out2")
        assert prod == make([("in", [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]])], ["out1", "out2"])

    @pytest.mark.parametrize(
        ("first", "second", "expected"),
        [
            (["a", "b", "c"], ["a", "b", "c"], ["a", "b", "c"]),  # IdenticalLists
            (["a", "b"], ["a", "c"], ["a", "b", "c"]),  # NonUniqueSupremumFirstListPriority
            (["a", "b"], ["b", "c"], ["a", "b", "c"]),  # NonUniqueSupremumAlternate
            (["a", "b", "c"], ["a", "d"], ["a", "b", "c", "d"]),  # DifferentLengths
            ([], [], []),  # SupremumEmptyLists
            (["a", "b"], [], ["a", "b"]),  # OneEmptyList
        ],
    )
    def test_supremum_orders_the_in_dims(self, first, second, expected) -> None:  # SupremumTest
        def layout(names: list[str]) -> LinearLayout:
            result = LL.empty()
            for name in names:
                result = result * identity_1d(2, name, "o")
            return result

        assert (layout(first) * layout(second)).get_in_dim_names() == expected

    def test_supremum_error_on_inconsistent_order(self) -> None:  # ErrorOnInconsistentOrder
        ab = identity_1d(2, "a", "o") * identity_1d(2, "b", "o")
        ba = identity_1d(2, "b", "o") * identity_1d(2, "a", "o")
        with pytest.raises(LayoutError, match=r"in dims \['a', 'b'\] and \['b', 'a'\]"):
            _ = ab * ba


class TestTritonTransposeReshape:
    def test_transpose_outs(self) -> None:  # TransposeOuts
        layout = (identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")).transpose_outs(
            ["out2", "out1"]
        )
        assert layout.get_out_dim_names() == ["out2", "out1"]
        assert layout == make(
            [
                ("in1", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]),
                ("in2", [[1, 0], [2, 0], [4, 0], [8, 0]]),
            ],
            ["out2", "out1"],
        )

    def test_transpose_outs_degenerate(self) -> None:  # TransposeOutsDegenerate
        layout = (identity_1d(32, "in1", "out1") * identity_1d(1, "in2", "out2")).transpose_outs(
            ["out2", "out1"]
        )
        assert layout == make(
            [("in1", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]), ("in2", [])], ["out2", "out1"]
        )

    def test_transpose_ins(self) -> None:  # TransposeIns
        layout = (identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")).transpose_ins(
            ["in2", "in1"]
        )
        assert layout.get_in_dim_names() == ["in2", "in1"]
        assert layout == make(
            [
                ("in2", [[0, 1], [0, 2], [0, 4], [0, 8]]),
                ("in1", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
            ],
            ["out1", "out2"],
        )

    def test_reshape_ins(self) -> None:  # ReshapeIns
        ll = make([("in1", [[1], [4], [8]]), ("in2", [[2]])], ["out"])
        assert ll.reshape_ins([("in3", 2), ("in4", 8)]) == make(
            [("in3", [[1]]), ("in4", [[4], [8], [2]])], ["out"]
        )

    def test_reshape_ins_degenerate(self) -> None:  # ReshapeInsDegenerateIn/Out/FirstOut
        ll = make([("in1", [[1], [4], [2]]), ("in2", [])], ["out"])
        assert ll.reshape_ins([("in3", 4), ("in4", 2)]) == make(
            [("in3", [[1], [4]]), ("in4", [[2]])], ["out"]
        )
        ll = make([("in1", [[1], [4]]), ("in2", [[2]])], ["out"])
        assert ll.reshape_ins([("in3", 8), ("in4", 1)]) == make(
            [("in3", [[1], [4], [2]]), ("in4", [])], ["out"]
        )
        assert ll.reshape_ins({"in3": 1, "in4": 8}) == make(
            [("in3", []), ("in4", [[1], [4], [2]])], ["out"]
        )

    def test_flatten_ins(self) -> None:  # FlattenIns, FlattenInsEdgeCases
        ll = make([("in1", [[1], [4], [8]]), ("in2", [[2]])], ["out"])
        assert ll.flatten_ins() == make([("in1", [[1], [4], [8], [2]])], ["out"])
        for edge in (
            make([("in1", [])], ["out"]),
            make([("in1", [])], []),
            make([], ["out"]),
            make([], []),
        ):
            assert edge.flatten_ins() == edge

    def test_reshape_outs(self) -> None:  # ReshapeOuts
        ll = make([("in1", [[1], [4], [8]]), ("in2", [[3]])], ["out"])
        assert ll.total_out_size == 16
        assert ll.reshape_outs([("out2", 2), ("out3", 8)]) == make(
            [("in1", [[1, 0], [0, 2], [0, 4]]), ("in2", [[1, 1]])], ["out2", "out3"]
        )

    def test_reshape_outs_degenerate(self) -> None:  # ReshapeOutsDegenerateIn/Out
        ll = make([("in1", [[1], [4], [2]]), ("in2", [])], ["out"])
        assert ll.reshape_outs([("out1", 4), ("out2", 2)]) == make(
            [("in1", [[1, 0], [0, 1], [2, 0]]), ("in2", [])], ["out1", "out2"]
        )
        ll = make([("in1", [[1], [4]]), ("in2", [[2]])], ["out"])
        assert ll.reshape_outs([("out1", 8), ("out2", 1)]) == make(
            [("in1", [[1, 0], [4, 0]]), ("in2", [[2, 0]])], ["out1", "out2"]
        )

    def test_flatten_outs(self) -> None:  # FlattenOuts, FlattenOutsEdgeCases
        ll = make(
            [("in1", [[1, 0], [4, 1], [8, 4]]), ("in2", [[3, 2]])],
            [("out1", 16), ("out2", 8)],
            surjective=False,
        )
        assert ll.flatten_outs() == make(
            [("in1", [[1], [4 + 16], [8 + 4 * 16]]), ("in2", [[3 + 2 * 16]])],
            [("out1", 16 * 8)],
            surjective=False,
        )
        for edge in (
            make([("in1", [])], ["out"]),
            make([("in1", [])], []),
            make([], ["out"]),
            make([], []),
        ):
            assert edge.flatten_outs() == edge


class TestTritonCompose:
    def test_compose(self) -> None:  # Compose
        l1 = make([("in1", [[1, 1], [0, 1]]), ("in2", [[1, 0], [1, 2]])], ["out1", "out2"])
        l2 = make([("out1", [[2, 2], [1, 0]]), ("out2", [[1, 1], [2, 1]])], ["out3", "out4"])
        composition = l1.compose(l2)
        assert composition == make(
            [("in1", [[3, 3], [1, 1]]), ("in2", [[2, 2], [0, 3]])],
            [("out3", 4), ("out4", 4)],
            surjective=False,
        )
        assert not composition.is_surjective()

    def test_compose_4d(self) -> None:  # Compose4D
        l1 = make(
            [
                ("in0", [[1, 0, 0, 0], [2, 0, 0, 0]]),
                ("in1", [[4, 0, 0, 0], [8, 0, 0, 0], [16, 0, 0, 0], [32, 0, 0, 0]]),
                ("in2", [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]]),
                ("in3", []),
            ],
            ["out3", "out0", "out1", "out2"],
        )
        l2 = make(
            [
                ("out3", [[1, 0, 0, 0], [2, 0, 0, 0]] + [[0, 0, 0, 0]] * 4),
                ("out0", [[0, 1, 0, 0]]),
                ("out1", [[0, 0, 1, 0]]),
                ("out2", [[0, 0, 0, 1], [0, 0, 0, 2]]),
            ],
            ["out3", "out2", "out1", "out0"],
        )
        assert l1.compose(l2) == make(
            [
                ("in0", [[1, 0, 0, 0], [2, 0, 0, 0]]),
                ("in1", [[0, 0, 0, 0]] * 4),
                ("in2", [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]]),
                ("in3", []),
            ],
            [("out3", 4), ("out2", 2), ("out1", 2), ("out0", 4)],
            surjective=False,
        )


class TestTritonInvertAndCompose:
    def test_simple(self) -> None:  # InvertAndCompose_Simple
        l1 = make([("in1", [[2], [1], [4]])], ["out"])
        l2 = make([("in2", [[4], [1], [2]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in1", [[4], [2], [1]])], ["in2"])
        assert composition.compose(l2) == l1

    def test_non_injective(self) -> None:  # InvertAndCompose_NonInjective
        l1 = make([("in1", [[2], [1], [4]])], ["out"])
        l2 = make([("in2", [[0], [2], [1], [4]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in1", [[2], [4], [8]])], [("in2", 16)], surjective=False)
        assert not composition.is_surjective()
        assert composition.compose(l2) == l1

    def test_broadcasted_in_dim(self) -> None:  # InvertAndCompose_BroadcastedInDim
        l1 = make([("in1", [[2], [1], [4]]), ("in2", [[0]])], ["out"])
        l2 = make([("in", [[4], [1], [2]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in1", [[4], [2], [1]]), ("in2", [[0]])], ["in"])
        assert composition.compose(l2) == l1

    def test_broadcast_at_beginning_of_second(self) -> None:  # ..._BroadcastAtBeginningOfSecond
        l1 = make([("in", [[1], [2], [4]])], ["out"])
        l2 = make([("in", [[0], [4], [1], [2]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in", [[4], [8], [2]])], [("in", 16)], surjective=False)
        assert composition.compose(l2) == l1

    def test_broadcast_at_end_of_second(self) -> None:  # InvertAndCompose_BroadcastAtEndOfSecond
        l1 = make([("in1", [[1], [2], [4]])], ["out"])
        l2 = make([("in2", [[4], [1], [2], [0]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in1", [[2], [4], [1]])], [("in2", 16)], surjective=False)
        assert composition.compose(l2).equal_ignoring_out_dim_sizes(l1)

    def test_broadcast_beginning_and_end_of_second(self) -> None:  # ..._BeginningAndEndOfSecond
        l1 = make([("in", [[1], [2], [4]])], ["out"])
        l2 = make([("in", [[0], [4], [1], [2], [0]])], ["out"])
        composition = l1.invert_and_compose(l2)
        assert composition == make([("in", [[4], [8], [2]])], [("in", 32)], surjective=False)
        assert composition.compose(l2) == l1

    def test_multidim(self) -> None:  # InvertAndCompose_Multidim
        l1 = make([("in1", [[1, 0], [0, 1], [2, 0], [3, 2]]), ("in2", [[2, 2]])], ["out1", "out2"])
        l2 = make([("in3", [[0, 1], [1, 0], [0, 0], [0, 2], [2, 1]])], ["out2", "out1"])
        c1 = l1.invert_and_compose(l2)
        assert c1.compose(l2) == l1.transpose_outs(l2.get_out_dim_names())
        c2 = l2.invert_and_compose(l1)
        assert c2.compose(l1) == l2.transpose_outs(l1.get_out_dim_names())

    def test_broadcasted_dims(self) -> None:  # InvertAndCompose_BroadcastedDims
        l1 = make([("in1", [[1], [2], [4]]), ("in2", [[0]])], ["out"])
        l2 = make([("in3", [[1], [2], [4]]), ("in4", [[0]])], ["out"])
        c = l1.invert_and_compose(l2)
        assert c == make(
            [("in1", [[1, 0], [2, 0], [4, 0]]), ("in2", [[0, 0]])],
            [("in3", 8), ("in4", 2)],
            surjective=False,
        )
        assert c.compose(l2) == l1

    def test_broadcasted_dims_2(self) -> None:  # InvertAndCompose_BroadcastedDims2
        a = make([("in1", [[1], [2]]), ("in2", [[0]])], ["out"])
        b = make([("in3", [[2], [1]]), ("in4", [[0]])], ["out"])
        c = a.invert_and_compose(b)
        assert c == make(
            [("in1", [[2, 0], [1, 0]]), ("in2", [[0, 0]])],
            [("in3", 4), ("in4", 2)],
            surjective=False,
        )
        assert c.compose(b) == a

    def test_identity_in_dim(self) -> None:  # InvertAndCompose_IdentityInDim
        def unit(k: int) -> list[int]:
            return [1 if d == k else 0 for d in range(9)]

        out_dims = [f"dim{i}" for i in range(9)]
        src = make(
            [
                ("register", [unit(8), unit(7)]),
                ("lane", [unit(6), unit(5), unit(4), unit(3), unit(2)]),
                ("warp", [unit(1), unit(0)]),
                ("block", []),
            ],
            out_dims,
        )
        dst = make(
            [
                ("register", [unit(8), unit(7)]),
                ("lane", [unit(0), unit(1), unit(2), unit(3), unit(4)]),
                ("warp", [unit(5), unit(6)]),
                ("block", []),
            ],
            out_dims,
        )
        cvt = dst.invert_and_compose(src)
        k = {"register": 3, "lane": 0, "warp": 2, "block": 0}
        assert dst.apply(k) == src.apply(cvt.apply(k))
        # Registers are the same in both and reach their own output bits: kept in place.
        assert cvt.sublayout(["register"], ["register"]) == identity_1d(4, "register", "register")

    def test_identity_heuristic_keeps_broadcast_warps_in_place(self) -> None:
        # triton 3.9: warps broadcast in both layouts map to themselves, not to warp 0.
        a = make([("register", [[1], [2]]), ("lane", [[4], [8]]), ("warp", [[0], [0]])], ["dim0"])
        b = make([("register", [[2], [1]]), ("lane", [[4], [8]]), ("warp", [[0], [0]])], ["dim0"])
        c = a.invert_and_compose(b)
        assert c == make(
            [
                ("register", [[2, 0, 0], [1, 0, 0]]),
                ("lane", [[0, 1, 0], [0, 2, 0]]),
                ("warp", [[0, 0, 1], [0, 0, 2]]),
            ],
            [("register", 4), ("lane", 4), ("warp", 4)],
            surjective=False,
        )

    @pytest.mark.parametrize(
        ("outer", "inner", "expected"),
        [
            # Equal sublayouts whose outputs overlap another in-dim's are solved, not kept:
            # register and lane both reach bit 0, so lane -> register 1 (triton 3.9).
            (
                [("register", [[1]]), ("lane", [[1]]), ("warp", [[2]])],
                [("register", [[1]]), ("lane", [[1]]), ("warp", [[2]])],
                [("register", [[1, 0, 0]]), ("lane", [[1, 0, 0]]), ("warp", [[0, 0, 1]])],
            ),
            # A zero basis in a block-diagonal in-dim stays in place...
            (
                [("register", [[1], [0]]), ("lane", [[2]])],
                [("register", [[1], [0]]), ("lane", [[2]])],
                [("register", [[1, 0], [2, 0]]), ("lane", [[0, 1]])],
            ),
            # ...but not when another in-dim shares its output bits (3 overlaps bit 0).
            (
                [("register", [[1], [0]]), ("warp", [[3]])],
                [("register", [[1], [0]]), ("warp", [[3]])],
                [("register", [[1, 0], [0, 0]]), ("warp", [[0, 1]])],
            ),
            # The other layout counts too: inner's lane reaches warp's bit, so warp is solved
            # (its zero basis goes to 0) while block stays in place.
            (
                [("register", [[1], [2]]), ("warp", [[0], [4]]), ("block", [[0], [8]])],
                [
                    ("register", [[2], [1]]),
                    ("warp", [[0], [4]]),
                    ("block", [[0], [8]]),
                    ("lane", [[4]]),
                ],
                [
                    ("register", [[2, 0, 0], [1, 0, 0]]),
                    ("warp", [[0, 0, 0], [0, 2, 0]]),
                    ("block", [[0, 0, 1], [0, 0, 2]]),
                    ("lane", [[0, 2, 0]]),
                ],
            ),
        ],
    )
    def test_identity_heuristic_needs_block_diagonal_dims(self, outer, inner, expected) -> None:
        # These expectations were read off triton 3.9's Python binding.
        o = make(outer, ["dim0"])
        i = make(inner, ["dim0"])
        c = i.invert_and_compose(o)
        assert c.bases == expected
        for x in itertools.product(*(range(s) for s in i.in_dims.values())):
            point = dict(zip(i.in_dims, x, strict=True))
            assert o.apply(c.apply(point)) == i.apply(point)

    def test_larger_codomain_of_outer(self) -> None:
        # llc (like older Triton) accepts an outer layout with larger out-dims; Triton 3.9
        # asserts equal sizes. The answer still satisfies self(x) == outer(C(x)).
        inner = make([("register", [[1], [2]])], ["dim0"])
        outer = make([("offset", [[2], [4], [1]])], ["dim0"])
        c = inner.invert_and_compose(outer)
        assert c == make([("register", [[4], [1]])], [("offset", 8)], surjective=False)
        for r in range(4):
            assert outer.apply(c.apply({"register": r})) == inner.apply({"register": r})

    def test_results_are_memoised(self) -> None:
        a = make([("register", [[2], [1]])], ["dim0"])
        b = make([("offset", [[1], [2]])], ["dim0"])
        LL.clear_caches()
        first = a.invert_and_compose(b)
        assert a.invert_and_compose(b) is first
        LL.clear_caches()
        assert a.invert_and_compose(b) == first


class TestTritonPseudoinvert:
    @staticmethod
    def packed_to_padded(m: int, k_packed: int) -> LinearLayout:  # getPackedCoordtoPaddedOffset
        def offset(row: int, col: int) -> int:
            linear = row * k_packed + col
            return (linear // 8) * 16 + linear % 8

        rows = [[offset(1 << i, 0)] for i in range(m.bit_length() - 1)]
        cols = [[offset(0, 1 << j)] for j in range(k_packed.bit_length() - 1)]
        return make([("row", rows), ("col", cols)], [("offset", m * k_packed * 2)], False)

    def test_blackwell_mixed_precision_dot_scaled_smem(self) -> None:
        # BlackwellMixedPrecisionDotScaledSMEM
        m, k_packed, k_padded = 16, 4, 8
        bases = []
        for i in range((m * k_padded).bit_length() - 1):
            offset = 1 << i
            packed = offset // 16 * 8 + offset % 8
            bases.append([packed // k_packed, packed % k_packed])
        layout = make([("offset", bases)], ["row", "col"])
        computed = layout.pseudoinvert()
        manual = self.packed_to_padded(m, k_packed)
        for i, j in itertools.product(range(m), range(k_packed)):
            assert computed.apply({"row": i, "col": j}) == manual.apply({"row": i, "col": j})
            assert layout.apply(computed.apply({"row": i, "col": j})) == {"row": i, "col": j}

    def test_blackwell_mixed_precision_dot_scaled_smem_swizzled(self) -> None:
        # BlackwellMixedPrecisionDotScaledSMEMSwizzled
        m, k_padded, vec = 16, 128, 16
        k_packed = k_padded // 2
        tile_rows, tile_cols = 8, 8 * 128 // 8
        bases = []
        for log_col in range(tile_cols.bit_length() - 1):
            padded = 1 << log_col
            bases.append([0, padded // 16 * 8 + padded % 8])
        for log_row in range(tile_rows.bit_length() - 1):
            row = 1 << log_row
            padded = vec * (row % 8)
            bases.append([row, padded // 16 * 8 + padded % 8])
        swizzled = make([("offset", bases)], ["row", "col"], surjective=False)
        # ensureLayoutNotSmallerThan(.., {row: 16, col: 64}): one more offset bit for rows.
        swizzled = swizzled * identity_1d(m // swizzled.get_out_dim_size("row"), "offset", "row")
        assert swizzled.out_dim_sizes == {"row": m, "col": k_packed}
        inverse = swizzled.pseudoinvert()
        plain = self.packed_to_padded(m, k_packed)
        for i, j in itertools.product(range(m), range(k_packed)):
            non_swizzled = plain.apply({"row": i, "col": j})["offset"]
            row, col = divmod(non_swizzled, k_padded)
            col_swizzled = ((col // 16) ^ (row % 8)) * 16 + col % 16
            assert inverse.apply({"row": i, "col": j})["offset"] == row * k_padded + col_swizzled

    def test_invert_is_the_pseudoinverse_of_an_invertible_layout(self) -> None:
        layout = make([("i", [[1], [3], [4]])], ["o"])
        assert layout.invert() == layout.pseudoinvert()
        assert layout.invert().compose(layout) == identity_1d(8, "o", "o")


class TestTritonQueries:
    def test_num_consecutive_in_out(self) -> None:  # NumConsecutiveInOut
        assert identity_1d(1, "in", "out").get_num_consecutive_in_out() == 1
        assert identity_1d(4, "in", "out").get_num_consecutive_in_out() == 4
        prod = identity_1d(4, "in1", "out") * identity_1d(8, "in2", "out")
        assert prod.get_num_consecutive_in_out() == 4
        prod = identity_1d(4, "in", "out1") * identity_1d(8, "in", "out2")
        assert prod.get_num_consecutive_in_out() == 4
        prod = zeros_1d(4, "in", "out1") * identity_1d(4, "in", "out2")
        assert prod.get_num_consecutive_in_out() == 1
        assert make([("in", [[1], [2], [4], [9]])], ["out"]).get_num_consecutive_in_out() == 1
        assert make([("in", [[1], [2], [4], [10]])], ["out"]).get_num_consecutive_in_out() == 2
        assert make([("in", [[1], [4], [2]])], ["out"]).get_num_consecutive_in_out() == 2
        layout = make([("in", [[1], [2], [4]]), ("in2", [[8], [18]])], ["out"])
        assert layout.get_num_consecutive_in_out() == 2

    def test_factor_maximal_identity_prefix_size(self) -> None:
        # LayoutUtilsTest.FactorMaximalIdentityPrefix: the identity prefix of x has size 4.
        layout = make([("x", [[1], [2], [8]]), ("other", [[4]])], [("out", 16)], False)
        assert layout.get_num_consecutive_in_out() == 4

    def test_free_variable_masks(self) -> None:  # FreeVariableMasks
        assert identity_1d(4, "in", "out").get_free_variable_masks() == {"in": 0}
        assert zeros_1d(16, "in", "out").get_free_variable_masks() == {"in": 0b1111}
        prod = (
            identity_1d(2, "in", "out")
            * zeros_1d(4, "in", "out")
            * identity_1d(4, "in", "out")
            * zeros_1d(2, "in", "out")
        )
        assert prod.get_free_variable_masks() == {"in": 0b100110}
        layout = make(
            [("in1", [[1, 1], [2, 2], [0, 0]]), ("in2", [[1, 0], [0, 1], [2, 0]])],
            ["out1", "out2"],
        )
        assert layout.get_free_variable_masks() == {"in1": 0b100, "in2": 0b10}

    def test_sublayout(self) -> None:  # Sublayout
        l1 = make([("in1", [[1, 0], [0, 1], [2, 0]]), ("in2", [[0, 1]])], ["out1", "out2"])
        expected = make([("in1", [[1], [0], [2]]), ("in2", [[0]])], ["out1"])
        assert l1.sublayout(["in1", "in2"], ["out1"]) == expected
        assert l1.sublayout(["in2", "in1"], ["out1"]) == expected
        assert l1.sublayout(["in2", "in1"], ["out2", "out1"]) == l1
        assert l1.sublayout(["in1"], ["out1"]) == make([("in1", [[1], [0], [2]])], ["out1"])
        assert l1.sublayout([], []) == LL.empty()
        assert l1.sublayout(["in1"], []) == make([("in1", [[], [], []])], [])
        assert l1.sublayout([], ["out1"]) == make([], [("out1", 4)], surjective=False)

    def test_sublayout_is_zero(self) -> None:  # SublayoutIsZero
        ident = identity_1d(4, "in", "out")
        assert not ident.sublayout_is_zero(["in"], ["out"])
        assert ident.sublayout_is_zero([], ["out"])
        assert ident.sublayout_is_zero(["in"], [])
        assert ident.sublayout_is_zero([], [])
        l1 = make([("in1", [[0, 1], [0, 2]]), ("in2", [[1, 1]])], ["out1", "out2"])
        assert l1.sublayout_is_zero(["in1"], ["out1"])
        assert not l1.sublayout_is_zero(["in1"], ["out2"])
        assert not l1.sublayout_is_zero(["in2"], ["out1"])
        assert not l1.sublayout_is_zero(["in2"], ["out2"])

    def test_quotient_one_dimension(self) -> None:  # QuotientOneDimension
        layout = make([("dim1", [[1, 0]]), ("dim2", [[0, 0]])], [("dim1", 2), ("dim2", 1)], False)
        quotient = layout.quotient(["dim1"])
        assert quotient == zeros_1d(2, "dim2", "dim2")
        assert quotient.quotient(["dim2"]) is None

    def test_quotient_several_dimensions(self) -> None:  # QuotientSeveralDimensions
        layout = make(
            [("dim1", [[1, 0], [2, 0], [4, 0]]), ("dim2", [[0, 1], [0, 2]])], ["dim1", "dim2"]
        )
        assert layout.quotient(["dim1", "dim2"]) is not None

    def test_quotient_multiple_trivial_dimensions(self) -> None:  # QuotientMultipleTrivialDims
        layout = make(
            [
                ("dim1", [[1, 0, 2], [2, 0, 1]]),
                ("dim2", [[0, 1, 0], [0, 2, 0], [0, 4, 0]]),
                ("dim3", [[0, 0, 1], [0, 0, 2]]),
            ],
            ["dim1", "dim2", "dim3"],
        )
        assert layout.quotient(["dim2"]) is not None
        layout = make(
            [
                ("dim1", [[1, 0, 2], [2, 0, 1]]),
                ("dim2", [[0, 1, 0], [0, 2, 0], [0, 4, 0]]),
                ("dim3", [[0, 1, 1], [0, 0, 2]]),
            ],
            ["dim1", "dim2", "dim3"],
        )
        assert layout.quotient(["dim2"]) is None

    def test_quotient_empty_layout(self) -> None:  # QuotientEmptyLayout
        assert LL.empty().quotient(["dim1"]) is None

    def test_quotient_identity_multiple_dimensions(self) -> None:  # QuotientIdentityMultipleDims
        layout = (
            identity_1d(8, "dim1", "dim1")
            * identity_1d(2, "dim2", "dim2")
            * identity_1d(4, "dim3", "dim3")
        )
        quotient = layout.quotient(["dim1", "dim3"])
        assert quotient is not None
        assert quotient.quotient(["dim2"]) is not None


class TestTritonDivide:
    def test_divide_left_basic(self) -> None:  # DivideLeft_Basic
        b = identity_1d(8, "in", "out")
        c = zeros_1d(16, "in", "out")
        assert (b * c).divide_left(b) == c
        assert (c * b).divide_left(c) == b

    def test_divide_left_non_matching_dims(self) -> None:  # DivideLeft_NonMatchingDims
        a = identity_1d(32, "in", "out")
        b = make([("in", [[1], [2], [4], [8]]), ("extra", [[0]])], ["out"])
        assert a.divide_left(b) is None

    def test_divide_left_simple(self) -> None:  # DivideLeft_Simple
        assert identity_1d(8, "in", "out").divide_left(identity_1d(4, "in", "out")) == (
            identity_1d(2, "in", "out")
        )
        assert identity_1d(8, "in", "out").divide_left(identity_1d(8, "in", "out")) == (
            identity_1d(1, "in", "out")
        )

    def test_divide_left_2d(self) -> None:  # DivideLeft_2D
        l1 = make(
            [("in1", [[1, 1], [2, 2], [0, 8], [0, 4]]), ("in2", [[0, 2], [0, 1]])],
            ["out1", "out2"],
        )
        l2 = make([("in1", [[1, 1], [2, 2]]), ("in2", [[0, 2], [0, 1]])], ["out1", "out2"])
        l3 = make([("in1", [[0, 2], [0, 1]]), ("in2", [])], ["out1", "out2"])
        assert l2 * l3 == l1
        assert l1.divide_left(l2) == l3

    def test_divide_left_eliminate_in_dim(self) -> None:  # DivideLeft_EliminateInDim
        l1 = make([("in2", [[0, 1], [1, 0]]), ("in1", [[2, 0], [0, 2]])], ["out1", "out2"])
        l2 = make([("in2", [[0, 1], [1, 0]])], ["out1", "out2"])
        l3 = make([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
        assert l2 * l3 == l1
        assert l1.divide_left(l2) == l3
        l4 = make([("in1", [[0, 1], [0, 2]]), ("in2", [])], ["out1", "out2"])
        l5 = make([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
        l6 = make([("in1", []), ("in2", [])], ["out1", "out2"])
        assert l5 * l6 == l4
        assert l4.divide_left(l5) == l6
        l7 = make([("in1", []), ("in2", [[0, 1]]), ("in3", [])], ["out1", "out2"])
        l8 = make([("in2", [[0, 1]])], ["out1", "out2"])
        l9 = make([("in1", []), ("in2", []), ("in3", [])], ["out1", "out2"])
        assert l8 * l9 == l7
        assert l7.divide_left(l8) == l9

    def test_divide_left_eliminate_out_dim(self) -> None:  # DivideLeft_EliminateOutDim
        l1 = make([("in2", [[1, 0], [1, 0]]), ("in1", [[2, 0], [0, 1]])], ["out1", "out2"])
        l2 = make([("in2", [[1, 0], [1, 0]])], ["out1", "out2"])
        l3 = make([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
        assert l2 * l3 == l1
        assert l1.divide_left(l2) == l3
        l4 = make([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
        l5 = make([], ["out1"])
        l6 = make([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
        assert l5 * l6 == l4
        assert l4.divide_left(l5) == l6

    def test_divide_right(self) -> None:
        a = identity_1d(4, "in", "out")
        b = zeros_1d(2, "in", "out") * identity_1d(2, "lane", "out")
        # The quotient keeps all of the dividend's in-dims, here an empty "lane".
        assert (a * b).divide_right(b) == make([("in", [[1], [2]]), ("lane", [])], ["out"])
        assert (a * b).divide_left(a) == b
        assert (a * b).divide_right(a) is None  # a is not the outer factor

    def test_divide_with_inconsistent_dim_order_is_none(self) -> None:
        a = identity_1d(2, "x", "o") * identity_1d(2, "y", "o")
        b = identity_1d(1, "y", "o") * identity_1d(1, "x", "o")
        assert a.divide_left(b) is None


class TestDimOperations:
    def test_resize_and_rename(self) -> None:
        layout = identity_1d(8, "i", "o")
        assert layout.resize_in_dim("i", 2).bases == [("i", [[1]])]
        assert layout.resize_in_dim("i", 32).bases == [("i", [[1], [2], [4], [0], [0]])]
        assert layout.resize_out_dim("o", 4).bases == [("i", [[1], [2], [0]])]
        assert layout.rename_in_dim("i", "lane").get_in_dim_names() == ["lane"]
        assert layout.rename_out_dim("o", "dim0").get_out_dim_names() == ["dim0"]

    def test_concat_and_remove_zero_bases(self) -> None:
        a = make([("i", [[1]])], [("o", 4)], False)
        b = make([("j", [[2]])], [("o", 4)], False)
        assert a.concat_ins(b).bases == [("i", [[1]]), ("j", [[2]])]
        c = identity_1d(2, "i", "x").concat_outs(identity_1d(2, "i", "y"))
        assert c.bases == [("i", [[1, 1]])] and c.out_dims == [("x", 2), ("y", 2)]
        broadcast = make([("r", [[1], [0], [2], [0]])], ["o"])
        assert broadcast.remove_zero_bases_along_dim("r").bases == [("r", [[1], [2]])]

    def test_is_identity_on_out_dim(self) -> None:
        # Triton's example: block -> (offset, block) as (1, 1) is the identity on block.
        layout = make(
            [("offset", [[1, 0]]), ("block", [[1, 1]])], [("offset", 2), ("block", 2)], False
        )
        assert layout.is_identity_on_out_dim("block")
        assert not layout.is_trivial_over(["block"])
        assert not layout.is_identity_on_out_dim("offset")

    def test_queries(self) -> None:
        layout = make([("r", [[1, 0], [0, 1]]), ("l", [[2, 0]])], ["a", "b"])
        assert layout.in_dims == {"r": 4, "l": 2}
        assert layout.out_dim_sizes == {"a": 4, "b": 2}
        assert (layout.total_in_size, layout.total_out_size) == (8, 8)
        assert layout.basis("r", 1) == (0, 1) and layout.get_basis("l", 0, "a") == 2
        assert layout.num_in_dims == 2 and layout.num_out_dims == 2
        assert layout.has_in_dim("r") and not layout.has_out_dim("r")
        assert hash(layout) == hash(make([("r", [[1, 0], [0, 1]]), ("l", [[2, 0]])], ["a", "b"]))

    def test_numpy_integers_are_accepted(self) -> None:
        layout = LL.from_bases([("i", [np.array([1]), np.array([2])])], ["o"], [np.int64(4)])
        assert layout.bases == [("i", [[1], [2]])]
        assert type(layout.basis("i", 0)[0]) is int
        assert layout.apply({"i": np.int32(3)}) == {"o": 3}

    def test_no_64_bit_cap(self) -> None:
        # 80 output bits: two out-dims of 2**40, and an 80-bit input.
        bases = [[1 << i, 0] for i in range(40)] + [[0, 1 << i] for i in range(40)]
        layout = LL.from_bases([("offset", bases)], ["dim0", "dim1"])
        assert layout.is_invertible() and layout.total_out_size_log2 == 80
        x = (1 << 79) | (1 << 41) | 5
        assert layout.apply({"offset": x}) == {"dim0": 5, "dim1": (1 << 39) | 2}
        assert layout.invert().apply(layout.apply({"offset": x})) == {"offset": x}
        small = layout.resize_in_dim("offset", 1 << 3) * LL.empty()
        values = LL.from_bases(
            [("i", [[1 << 70, 1], [3, 1 << 60], [1 << 79, 0]])],
            ["a", "b"],
            [1 << 80, 1 << 61],
            require_surjective=False,
        ).apply_all()
        assert values["a"].dtype == object and values["a"][1] == 1 << 70
        assert values["b"][3] == 1 ^ (1 << 60)
        assert small.apply_all()["dim0"].tolist() == list(range(8))


# =================================================================================== errors
class TestErrors:
    def test_non_power_of_two_sizes_name_the_dim(self) -> None:
        with pytest.raises(LayoutError, match=r"out-dim 'o'.*power of two, got 6"):
            LL.from_bases([("i", [[1]])], ["o"], [6], require_surjective=False)
        with pytest.raises(LayoutError, match=r"identity_1d size for 'lane'.*got 6"):
            identity_1d(6, "lane", "o")
        with pytest.raises(LayoutError, match=r"zeros_1d out_dim_size for 'o'.*got 3"):
            zeros_1d(4, "i", "o", 3)
        with pytest.raises(LayoutError, match=r"strided_1d stride for 'i'.*got 3"):
            LL.strided_1d(4, 3, "i", "o")
        with pytest.raises(LayoutError, match=r"reshape_ins size of 'x'.*got 3"):
            identity_1d(8, "i", "o").reshape_ins([("x", 3)])
        with pytest.raises(LayoutError, match=r"reshape_outs size of 'y'.*got 0"):
            identity_1d(8, "i", "o").reshape_outs([("y", 0)])
        with pytest.raises(LayoutError, match=r"resize_in_dim size of 'i'.*got 5"):
            identity_1d(8, "i", "o").resize_in_dim("i", 5)

    def test_wrong_basis_width_names_the_basis(self) -> None:
        with pytest.raises(
            LayoutError, match=r"basis 1 of in-dim 'lane' has 1 entries, expected 2"
        ):
            LL.from_bases([("lane", [[1, 0], [2]])], ["dim0", "dim1"])

    def test_out_of_range_basis_names_the_basis(self) -> None:
        with pytest.raises(
            LayoutError, match=r"basis 2 of in-dim 'register' is 8 in out-dim 'dim0'.*size 8"
        ):
            LL.from_bases([("register", [[1], [2], [8]])], ["dim0"], [8])
        with pytest.raises(LayoutError, match=r"basis 0 of in-dim 'warp' is negative \(-1\)"):
            LL.from_bases([("warp", [[-1]])], ["dim0"])

    def test_malformed_bases(self) -> None:
        with pytest.raises(LayoutError, match=r"in-dim 'lane'.*integers"):
            LL.from_bases([("lane", [[1.5]])], ["dim0"], [2], require_surjective=False)
        with pytest.raises(LayoutError, match=r"in-dim 'lane'.*integers"):
            LL.from_bases([("lane", [1])], ["dim0"])
        with pytest.raises(LayoutError, match="pairs"):
            LL.from_bases(["lane"], ["dim0"])
        with pytest.raises(LayoutError, match="in-dim 'lane' is given twice"):
            LL.from_bases([("lane", []), ("lane", [])], ["dim0"])
        with pytest.raises(LayoutError, match="duplicate out-dim names"):
            LL.from_bases([], ["dim0", "dim0"])
        with pytest.raises(LayoutError, match="2 out-dim names but 1 sizes"):
            LL.from_bases([], ["dim0", "dim1"], [4])

    def test_not_surjective_when_required(self) -> None:
        with pytest.raises(LayoutError, match=r"not surjective.*rank 1.*2 bits"):
            LL.from_bases([("i", [[1], [1]])], ["o"], [4])

    def test_invert_non_invertible(self) -> None:
        with pytest.raises(LayoutError, match="invert: the layout is not invertible"):
            zeros_1d(4, "i", "o").invert()
        with pytest.raises(LayoutError, match="pseudoinvert: the layout is not surjective"):
            LL.strided_1d(4, 2, "i", "o").pseudoinvert()

    def test_compose_with_mismatched_dims(self) -> None:
        with pytest.raises(LayoutError, match=r"out-dims \['o'\] must be the in-dims.*\['x'\]"):
            identity_1d(4, "i", "o").compose(identity_1d(4, "x", "y"))
        with pytest.raises(LayoutError, match=r"out-dim 'o' has size 8.*only size 4"):
            identity_1d(8, "i", "o").compose(identity_1d(4, "o", "y"))

    def test_invert_and_compose_errors(self) -> None:
        with pytest.raises(LayoutError, match="out-dims differ"):
            identity_1d(4, "i", "a").invert_and_compose(identity_1d(4, "j", "b"))
        with pytest.raises(LayoutError, match=r"out-dim 'o' has size 8.*only 4"):
            identity_1d(8, "i", "o").invert_and_compose(identity_1d(4, "j", "o"))
        with pytest.raises(LayoutError, match=r"basis 1 of in-dim 'i' \(\[2\] in out-dims"):
            identity_1d(4, "i", "o").invert_and_compose(
                make([("j", [[1], [1]])], [("o", 4)], False)
            )
        with pytest.raises(LayoutError, match="expected a LinearLayout"):
            identity_1d(4, "i", "o").invert_and_compose("offset")  # type: ignore[arg-type]

    def test_apply_with_missing_or_bad_dims(self) -> None:
        layout = identity_1d(4, "register", "o") * identity_1d(2, "lane", "o")
        with pytest.raises(LayoutError, match=r"in-dims \['register', 'lane'\], got \['lane'\]"):
            layout.apply({"lane": 1})
        with pytest.raises(LayoutError, match=r"got \['lane', 'warp'\]"):
            layout.apply({"lane": 1, "warp": 0})
        with pytest.raises(LayoutError, match=r"value 4 of in-dim 'register'.*\[0, 4\)"):
            layout.apply({"register": 4, "lane": 0})
        with pytest.raises(LayoutError, match=r"value -1 of in-dim 'lane'"):
            layout.apply({"register": 0, "lane": -1})
        with pytest.raises(LayoutError, match="in-dim 'lane' must be an integer"):
            layout.apply({"register": 0, "lane": 0.5})

    def test_dim_lookups_name_the_dim(self) -> None:
        layout = identity_1d(4, "register", "dim0")
        with pytest.raises(LayoutError, match="unknown in-dim 'lane'"):
            layout.get_in_dim_size("lane")
        with pytest.raises(LayoutError, match="unknown out-dim 'dim1'"):
            layout.get_out_dim_size("dim1")
        with pytest.raises(LayoutError, match="in-dim 'register' has 2 bases; no basis 2"):
            layout.basis("register", 2)
        with pytest.raises(LayoutError, match="unknown in-dim 'warp'"):
            layout.sublayout(["warp"], ["dim0"])
        with pytest.raises(LayoutError, match=r"not a permutation of the in-dims"):
            layout.transpose_ins(["lane"])
        with pytest.raises(LayoutError, match=r"not a permutation of the out-dims"):
            layout.transpose_outs(["dim0", "dim1"])
        with pytest.raises(LayoutError, match="in-dim 'register' already exists"):
            (layout * identity_1d(2, "lane", "dim0")).rename_in_dim("lane", "register")
        with pytest.raises(LayoutError, match="new size 8 of 'dim0' exceeds its size 4"):
            layout.resize_out_dim("dim0", 8)

    def test_reshape_and_concat_errors(self) -> None:
        layout = identity_1d(8, "i", "o")
        with pytest.raises(LayoutError, match=r"reshape_ins: new in-dims.*16 elements.*8"):
            layout.reshape_ins([("a", 16)])
        with pytest.raises(LayoutError, match=r"reshape_outs: new out-dims.*4 elements.*8"):
            layout.reshape_outs([("a", 4)])
        with pytest.raises(LayoutError, match=r"concat_ins: in-dims \['i'\] are in both"):
            layout.concat_ins(layout)
        # Issue 7: a repeated name made a layout that apply could never satisfy.
        with pytest.raises(LayoutError, match="reshape_ins: in-dim 'a' is given twice"):
            layout.reshape_ins([("a", 2), ("a", 4)])
        with pytest.raises(LayoutError, match="reshape_outs: out-dim 'b' is given twice"):
            layout.reshape_outs([("b", 4), ("b", 2)])
        two = identity_1d(2, "i", "o") * identity_1d(4, "j", "p")
        with pytest.raises(LayoutError, match="reshape_ins: in-dim 'j' is given twice"):
            two.reshape_ins([("i", 2), ("j", 2), ("j", 2)])
        with pytest.raises(LayoutError, match="concat_outs: in-dims differ"):
            layout.concat_outs(identity_1d(4, "i", "p"))

    def test_no_assert_statements(self) -> None:
        # Input validation raises LayoutError; an `assert` would vanish under `python -O`.
        for module in (llc.linear_layout, llc.f2):
            tree = ast.parse(inspect.getsource(module))
            assert not [n for n in ast.walk(tree) if isinstance(n, ast.Assert)], module.__name__
