"""Small statistics shared by the TTA validation scripts (validate_tta.py, tta_links.py)."""
import math


def kendall(a, b):
    """Kendall's tau-a over the pairs that are not tied in either list; None without pairs."""
    n, s, pairs = len(a), 0, 0
    for i in range(n):
        for j in range(i + 1, n):
            x, y = a[i] - a[j], b[i] - b[j]
            if x == 0 or y == 0:
                continue
            s += 1 if x * y > 0 else -1
            pairs += 1
    return s / pairs if pairs else None


def quant(v, q):
    """Quantile q of v, linear between order statistics; None for an empty list."""
    v = sorted(v)
    if not v:
        return None
    p = q * (len(v) - 1)
    i = int(p)
    if i + 1 >= len(v) or p == i or v[i + 1] == v[i]:
        return v[i]
    if math.isinf(v[i + 1]):  # an infinite neighbour (a pick that never reaches): no interpolation
        return v[i + 1]
    return v[i] + (p - i) * (v[i + 1] - v[i])


def within(lost, tol=0.10):
    """Share of the picks that lost at most `tol` of the best (None entries left out; inf: a
    pick that never reaches); None for an empty list."""
    v = [x for x in lost if x is not None]
    return (sum(1 for x in v if x <= tol) / len(v)) if v else None
