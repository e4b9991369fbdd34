"""The one audio format inside the mixer: 48 kHz mono float32 in [-1, 1], 20 ms frames."""

SAMPLE_RATE = 48000
FRAME = 960  # samples per 20 ms frame
FRAME_SECONDS = FRAME / SAMPLE_RATE
