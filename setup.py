"""The one compiled part: server.media._fastrtp (RTP out and mic packets in, in C; server/media/fastrtp.py).

Optional: where no C compiler is there, pip installs the rest and the server
sends and takes packets through its Python path (server/media/rtc.py, server/media/rtp_in.py),
the same bytes and audio, more CPU.
Everything else is configured in pyproject.toml.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("server.media._fastrtp", ["server/media/_fastrtp.c"], optional=True,
                             extra_compile_args=["-O2", "-Wall"])])
