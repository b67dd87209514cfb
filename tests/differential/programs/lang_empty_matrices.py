"""Empty matrices: ``wp.types.matrix((0, 0), float)`` (any zero dimension gives Warp's 0x0 matrix)
is a type at Python scope and in kernels; slices past a matrix's end are empty and compare equal
to it; assigning an empty matrix to an empty slice changes nothing. ``numpy()`` of an array is
writable (changing it does not break a later launch)."""

vec4 = wp.types.vector(4, float)
mat00 = wp.types.matrix((0, 0), float)
mat04 = wp.types.matrix((0, 4), float)


@wp.kernel
def slices(out: wp.array(dtype=int), m_out: wp.array(dtype=wp.mat22)):
    m = wp.matrix_from_rows(vec4(1.0, 2.0, 3.0, 4.0), vec4(5.0, 6.0, 7.0, 8.0))
    out[0] = int(m[123:] == mat00())
    out[1] = int(m[:, 9:] == mat00())
    m[5:] = mat00()
    m[:, 7:] = mat00()
    out[2] = int(m[1, 3])
    n = wp.mat22(1.0, 2.0, 3.0, 4.0)
    n[2:] = mat00()
    m_out[0] = n


def run():
    out = wp.zeros(3, dtype=int)
    m_out = wp.zeros(1, dtype=wp.mat22)
    wp.launch(slices, 1, inputs=[out, m_out])
    m = m_out.numpy().copy()
    host = m_out.numpy()
    host[0, 0, 0] += 10.0  # numpy() is writable (Warp's is a view of m_out, jwarp's a copy: m_out not read again)
    again = wp.array(host, dtype=wp.mat22)
    return {
        "flags": out.numpy(),
        "m": m,
        "edited": again.numpy(),
        "shape00": np.array(mat00._shape_),
        "shape04": np.array(mat04._shape_),
        "empty_value": np.array(len(mat00())),
    }
