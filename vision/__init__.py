"""Ball detection: the table in an image, the balls in a frame (classical, neural, Hough detectors).

The compiled kernels cache into one user folder keyed on their sources (``vision.kernel_cache``); the locator
is installed here, before any kernel module is imported.
"""

from vision import kernel_cache as _kernel_cache

_kernel_cache.install()
