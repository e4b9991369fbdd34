"""Media: the voice between browsers and the `audio` mixer.

Owns WebRTC peer connections (`rtc`, on aiortc), RTP out and mic packets in
(`fastrtp` with the optional compiled `_fastrtp`, `rtp_in`), SRTP, RTCP pacing,
Opus, the room's voice loop (`voice`, with its peers in `peerset`, its shared
encodes in `streams` and its figures in `voicestats`), the ICE candidate guard
and TURN credentials. Imports `audio` and no other server package: the rooms hand it a
routing and take mouth levels back.
"""
