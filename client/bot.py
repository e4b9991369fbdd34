"""Bots: a seat taken through the protocol (client.protocol_client) plus a real WebRTC voice.

A bot speaks a tone or a WAV file as its microphone, records what the server
sends it, and can play the game with `autoplay`. Tests, the room benchmark
and `sussurro bot` (client/bot_cli.py) use it:

    sussurro bot --url http://127.0.0.1:8000 --room CODE --name Bot \\
                 --tone 440 --record out.wav --autoplay --seconds 60
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from client.autoplay import play
from client.protocol_client import Client
from client.rtc_peer import Recorder, Silence, Source, VoicePeer
from server.media.rtc import VoiceError

_refs = itertools.count(1)


class Bot:
    """One player: `client` (socket, views, messages) and `voice` (the WebRTC peer).

    The recording survives reconnections: every new peer appends to `recorder`.
    A bot whose client follows its room (`client.follow`, cluster mode) starts
    a new voice after each reconnection, as the web client does on `welcome`;
    `voice_restarts` counts them.
    """

    def __init__(self, client: Client, source: Source | None = None, *, dtx: bool = False,
                 ice_servers: list[dict] | None = None, decode: bool = True,
                 stereo: bool = False) -> None:
        """`dtx`: send nothing while the mic is silent; `decode=False`: record only when
        packets arrive, not what they say (load tests); `stereo`: take a stereo mix (the
        offer says so) and record both channels."""
        self.client = client
        self.source = source or Silence()
        self.dtx = dtx
        self.decode = decode
        self.ice_servers = ice_servers
        self.stereo = stereo
        self.recorder = Recorder(2 if stereo else 1)
        self.voice: VoicePeer | None = None
        self.voice_wanted = False
        self.voice_restarts = 0
        self.voice_error: str | None = None  # why the last restart after a reconnection failed
        client.on_reconnect.append(self._after_reconnect)

    @property
    def pid(self) -> str:
        return self.client.player

    @classmethod
    async def create(cls, url: str, name: str, source: Source | None = None, *,
                     preset: str | None = None, follow: bool = False, **kw: Any) -> Bot:
        """Create a room (the bot is its host) and connect its socket.

        `follow`: reconnect on its own, voice included, when the room moves."""
        client = await Client.create(url, name, preset=preset)
        client.follow = follow
        bot = cls(client, source, **kw)
        await bot.client.connect()
        return bot

    @classmethod
    async def join(cls, url: str, code: str, name: str, source: Source | None = None, *,
                   follow: bool = False, **kw: Any) -> Bot:
        """Take a seat in room `code` and connect its socket."""
        client = await Client.join(url, code, name)
        client.follow = follow
        bot = cls(client, source, **kw)
        await bot.client.connect()
        return bot

    async def _after_reconnect(self) -> None:
        # A new socket means a new node (or a restarted one): the old peer is dead.
        if self.voice_wanted:
            self.voice_restarts += 1
            try:
                await self.start_voice()
            except (VoiceError, TimeoutError, ConnectionError, OSError) as exc:
                self.voice_error = repr(exc)
                self.voice_wanted = True  # the next reconnection tries again

    async def start_voice(self, timeout: float = 20.0) -> None:
        """Offer a new peer connection through the socket and wait until it is connected.

        A previous peer is closed first (a reconnection). Raises VoiceError
        with the server's code if the offer is refused.
        """
        await self.stop_voice()
        self.voice_wanted = True
        self.voice = VoicePeer(self.source, dtx=self.dtx, ice_servers=self.ice_servers,
                               recorder=self.recorder, decode=self.decode,
                               stereo=self.stereo)
        await self.voice.connect(self._signal, timeout=timeout)

    async def _signal(self, sdp: str, timeout: float = 20.0) -> str:
        ref = f"rtc-{next(_refs)}"
        mark = self.client.mark()
        await self.client.send("rtc_offer", sdp=sdp, ref=ref)
        msg = await self.client.wait_for(
            lambda m: m["type"] == "rtc_answer" or (m["type"] == "error" and m.get("ref") == ref),
            timeout, since=mark)
        if msg["type"] == "error":
            raise VoiceError(msg.get("code") or "rtc_failed", msg.get("message", ""))
        return msg["sdp"]

    def speak(self, source: Source) -> None:
        """Change what the microphone says, from its next frame."""
        self.source = source
        if self.voice is not None:
            self.voice.mic.source = source

    async def play(self, rng: random.Random | None = None, timeout: float = 120.0,
                   delay: float = 0.0) -> dict[str, Any]:
        """Play with `autoplay` until the game is over; the final view."""
        return await play(self.client, rng, timeout=timeout, delay=delay)

    async def stop_voice(self) -> None:
        """Close the peer connection (the recording is kept)."""
        self.voice_wanted = False
        if self.voice is not None:
            await self.voice.close()
            self.voice = None

    async def close(self) -> None:
        """Close the voice and the socket (the seat is kept)."""
        await self.stop_voice()
        await self.client.close()
