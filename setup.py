"""The one compiled part: server._fastrtp (RTP out and mic packets in, in C; server/fastrtp.py).

Optional: where no C compiler is there, pip installs the rest and the server
sends and takes packets through its Python path (server/rtc.py, server/rtp_in.py),
the same bytes and audio, more CPU.
Everything else is configured in pyproject.toml.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("server._fastrtp", ["server/_fastrtp.c"], optional=True,
                             extra_compile_args=["-O2", "-Wall"])])
