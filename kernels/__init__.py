"""numba kernels (installed as wsim.kernels): integer arrays in, integer arrays out.

Every kernel takes the compiled tables as arguments (never module globals, which numba's
cache would freeze); see wsim.tables for their layout.
"""
