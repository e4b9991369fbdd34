/* server.media._fastrtp: one listener's outbound RTP packet (header, SRTP, sendto) in C,
 * and one peer's mic packets in (`Receiver`, below).
 *
 * The Python path (server/media/rtc.py, DirectRtp.send) does the same for each
 * packet: the voice loop calls it once per listener per 20 ms tick, and its
 * interpreter work (frames, attribute look-ups, the struct packing, the cffi
 * call, the counters) is most of what a send costs besides the kernel's
 * sendto. A `Sender` holds what that path reads per packet (its own copy of
 * the UDP socket, the peer's address, the libsrtp session and its
 * `srtp_protect`, the header template, sequence number and RTP origin) and
 * sends one packet per call. The counters aiortc's RTCP sender reports read
 * are kept here and handed back to Python by `sync()`.
 *
 * Built when a C compiler is there (setup.py: an optional extension); without
 * it, or if its start-up check fails (server/media/fastrtp.py), the Python path
 * sends. No third-party header is needed: `srtp_protect` and the session are
 * passed as addresses taken from pylibsrtp's cffi binding.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFFER 1500          /* one datagram, as pylibsrtp */
#define TRAILER (16 + 128)   /* SRTP_MAX_TAG_LEN + SRTP_MAX_MKI_LEN */
#define MAX_HEADER 64
#define FRAME 960            /* RTP time of one 20 ms tick at 48 kHz */
#define NTP_EPOCH_OFFSET 2208988800ULL

typedef int (*protect_fn)(void *ctx, void *rtp, int *len);

typedef struct {
    PyObject_HEAD
    int fd;                       /* our own duplicate of the peer's UDP socket */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    protect_fn protect;
    void *ctx;                    /* the libsrtp session (srtp_t) */
    PyObject *keep;               /* what keeps that session alive */
    unsigned char header[MAX_HEADER];
    int hlen;
    uint16_t seq;                 /* the next packet's */
    uint32_t origin;              /* RTP time of tick0 */
    long long tick0;
    unsigned long long sent, octets, wire, dropped, errors;
    uint32_t last_ts;
    unsigned long long last_ntp;
    int since_sync;
} Sender;

static unsigned long long ntp_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned long long frac = ((unsigned long long)t.tv_nsec << 32) / 1000000000ULL;
    return (((unsigned long long)t.tv_sec + NTP_EPOCH_OFFSET) << 32) | (frac & 0xFFFFFFFFULL);
}

static void sender_close_fd(Sender *self) {
    if (self->fd >= 0) {
        close(self->fd);
        self->fd = -1;
    }
}

static int Sender_init(Sender *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"fd", "host", "port", "protect", "ctx", "header", "seq",
                             "origin", "tick0", "keep", NULL};
    int fd, port, seq;
    const char *host;
    unsigned long long protect, ctx;
    unsigned long origin;
    long long tick0;
    Py_buffer header;
    PyObject *keep;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "isiKKy*ikLO", kwlist, &fd, &host, &port,
                                     &protect, &ctx, &header, &seq, &origin, &tick0, &keep))
        return -1;
    if (header.len < 12 || header.len > MAX_HEADER) {
        PyBuffer_Release(&header);
        PyErr_SetString(PyExc_ValueError, "an RTP header is 12 to 64 bytes here");
        return -1;
    }
    if (port <= 0 || port > 65535 || seq < 0 || seq > 0xFFFF || !protect || !ctx) {
        PyBuffer_Release(&header);
        PyErr_SetString(PyExc_ValueError, "bad port, sequence number or libsrtp address");
        return -1;
    }
    memset(&self->addr, 0, sizeof self->addr);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&self->addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&self->addr;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        self->addrlen = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        self->addrlen = sizeof *v6;
    } else {
        PyBuffer_Release(&header);
        PyErr_Format(PyExc_ValueError, "not a numeric address: %s", host);
        return -1;
    }
    memcpy(self->header, header.buf, (size_t)header.len);
    self->hlen = (int)header.len;
    PyBuffer_Release(&header);
    sender_close_fd(self);
    self->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (self->fd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    self->protect = (protect_fn)(uintptr_t)protect;
    self->ctx = (void *)(uintptr_t)ctx;
    Py_INCREF(keep);
    Py_XSETREF(self->keep, keep);
    self->seq = (uint16_t)seq;
    self->origin = (uint32_t)origin;
    self->tick0 = tick0;
    self->sent = self->octets = self->wire = self->dropped = self->errors = 0;
    self->last_ts = 0;
    self->last_ntp = 0;
    self->since_sync = 0;
    return 0;
}

static PyObject *Sender_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Sender *self = (Sender *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->fd = -1;
    return (PyObject *)self;
}

static void Sender_dealloc(Sender *self) {
    sender_close_fd(self);
    Py_CLEAR(self->keep);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* send(payload: bytes, tick: int[, pt: int]) -> int: ticks sent since the last sync();
 * `pt`: this packet's payload type instead of the header's (RED, server/media/protect.py) */
static PyObject *Sender_send(Sender *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 3 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "send(payload: bytes, tick: int[, pt: int])");
        return NULL;
    }
    long long tick = PyLong_AsLongLong(args[1]);
    if (tick == -1 && PyErr_Occurred())
        return NULL;
    long pt = -1;
    if (nargs == 3 && args[2] != Py_None) {
        pt = PyLong_AsLong(args[2]);
        if (pt == -1 && PyErr_Occurred())
            return NULL;
        if (pt < 0 || pt > 127) {
            PyErr_SetString(PyExc_ValueError, "pt: 0..127");
            return NULL;
        }
    }
    if (self->fd < 0) {
        PyErr_SetString(PyExc_ValueError, "the sender is closed");
        return NULL;
    }
    Py_ssize_t plen = PyBytes_GET_SIZE(args[0]);
    int h = self->hlen;
    if (h + plen > BUFFER - TRAILER) {
        PyErr_SetString(PyExc_ValueError, "packet is too long");
        return NULL;
    }
    unsigned char buf[BUFFER];
    uint32_t ts = self->origin + (uint32_t)((unsigned long long)(tick - self->tick0) * FRAME);
    memcpy(buf, self->header, (size_t)h);
    if (pt >= 0)
        buf[1] = (unsigned char)((buf[1] & 0x80) | pt);
    buf[2] = (unsigned char)(self->seq >> 8);
    buf[3] = (unsigned char)self->seq;
    buf[4] = (unsigned char)(ts >> 24);
    buf[5] = (unsigned char)(ts >> 16);
    buf[6] = (unsigned char)(ts >> 8);
    buf[7] = (unsigned char)ts;
    memcpy(buf + h, PyBytes_AS_STRING(args[0]), (size_t)plen);
    int len = h + (int)plen;
    if (self->protect(self->ctx, buf, &len) != 0) {
        self->errors++;  /* as pylibsrtp raising: nothing sent, the number not used */
    } else {
        ssize_t n;
        do {
            n = sendto(self->fd, buf, (size_t)len, MSG_DONTWAIT,
                       (struct sockaddr *)&self->addr, self->addrlen);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            /* a full socket buffer (uvloop would queue, a kernel drop is the same
               to the listener) or an ICMP error reported late: the packet is lost */
            self->dropped++;
        }
        self->seq++;
        self->sent++;
        self->octets += (unsigned long long)plen;
        self->wire += (unsigned long long)len;
        self->last_ts = ts;
        self->last_ntp = ntp_now();
    }
    return PyLong_FromLong(++self->since_sync);
}

/* sync() -> (sent, octets, wire, dropped, errors, last_ts, last_ntp, seq); zeroes them */
static PyObject *Sender_sync(Sender *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = Py_BuildValue("(KKKKKkKi)", self->sent, self->octets, self->wire,
                                  self->dropped, self->errors, (unsigned long)self->last_ts,
                                  self->last_ntp, (int)self->seq);
    if (out != NULL) {
        self->sent = self->octets = self->wire = self->dropped = self->errors = 0;
        self->since_sync = 0;
    }
    return out;
}

static PyObject *Sender_close(Sender *self, PyObject *Py_UNUSED(ignored)) {
    sender_close_fd(self);
    Py_RETURN_NONE;
}

static PyMethodDef Sender_methods[] = {
    {"send", (PyCFunction)(void (*)(void))Sender_send, METH_FASTCALL,
     "send(payload, tick) -> ticks since the last sync(): header, SRTP and sendto of one packet"},
    {"sync", (PyCFunction)Sender_sync, METH_NOARGS,
     "(sent, octets, wire, dropped, errors, last RTP time, its NTP time, next seq) since the "
     "last sync(); the counts start again from 0"},
    {"close", (PyCFunction)Sender_close, METH_NOARGS, "close the socket's duplicate"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SenderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "server.media._fastrtp.Sender",
    .tp_doc = "One listener's outbound RTP: header, SRTP and sendto per packet, in C.",
    .tp_basicsize = sizeof(Sender),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Sender_new,
    .tp_init = (initproc)Sender_init,
    .tp_dealloc = (destructor)Sender_dealloc,
    .tp_methods = Sender_methods,
};

/* ---- Receiver: one peer's mic packets (inbound SRTP), taken in C ---------------------
 *
 * The Python path (server/media/rtp_in.py, RtpIn.take) runs for every mic packet from the
 * socket's `datagram_received`: the RTP/RTCP demultiplexing, the DTLS and queue checks,
 * the payload type and SSRC, `srtp_unprotect`, the payload's span, aiortc's
 * `StreamStatistics.add`, the late/duplicate drop of the jitter buffer and the batch's
 * hold. A `Receiver` does the same in C for one stream (one SSRC) once its DTLS is up
 * and the SSRC routed, and holds (RTP time, payload, arrival time) until the voice
 * tick's flush drains it (`drain()`). What is not its own goes to the protocol's own
 * `datagram_received`, in the same order rules as RtpIn.take; `Port(receiver, original)`
 * is the callable put in the protocol's place.
 *
 * The RTCP statistics (RFC 3550 A.1/A.8, as aiortc's StreamStatistics keeps them) and
 * the jitter buffer's last sequence number live here; `state()`/`load()` move them to
 * and from the Python objects, which server/media/fastrtp.py does every SYNC packets and
 * whenever a packet of this stream takes the Python path (`push`, then `pull` before
 * this path takes one again).
 */

#define MAX_HELD 256
#define RX_SYNC_EVERY 25
#define ACTIVE_EVERY 50

typedef int (*unprotect_fn)(void *ctx, void *srtp, int *len);

typedef struct {
    uint32_t ts;
    int seq;
    double at;
    PyObject *payload;
} Held;

typedef struct {
    PyObject_HEAD
    unprotect_fn unprotect;
    void *ctx;
    PyObject *session;      /* the pylibsrtp Session: keeps ctx alive, and dtls._rx_srtp is it */
    PyObject *dtls, *connected, *receiver, *queue, *ssrc_table, *ssrc_key, *active;
    PyObject *batch;        /* MicBatch or None: its `holding` says hold or decode now */
    PyObject *now_fn;       /* aiortc's clock.current_datetime */
    PyObject *decode_now;   /* decode_now(ts, payload, seq): the batch is not holding */
    PyObject *push, *pull;  /* state to Python / from Python (see above) */
    PyObject *flush;        /* the batch's flush, when MAX_HELD are held */
    uint32_t ssrc;
    int clockrate;
    unsigned char opus[128];
    /* StreamStatistics */
    int has_base, has_max, has_last;
    int base_seq, max_seq;
    long long cycles, received, jitter_q4, last_arrival, last_timestamp;
    /* ImmediateJitterBuffer */
    int last_seq;           /* -1: none yet */
    /* counters */
    unsigned long long taken, refused, late, rx_bytes, rx_packets, cpu_ns, count;
    int since_push, stale;
    double fake_time;       /* tests: time.time() for the statistics when >= 0 */
    Py_ssize_t nheld;
    Held held[MAX_HELD];
} Receiver;

static PyObject *s_state, *s_rx_srtp, *s_enabled, *s_holding;

static long long thread_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double mono_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int Receiver_init(Receiver *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"unprotect", "ctx", "session", "ssrc", "clockrate", "opus",
                             "dtls", "connected", "receiver", "queue", "ssrc_table", "active",
                             "batch", "now", "decode_now", "push", "pull", "flush", NULL};
    unsigned long long unprotect, ctx;
    unsigned long ssrc;
    int clockrate;
    Py_buffer opus;
    PyObject *session, *dtls, *connected, *receiver, *queue, *table, *active, *batch, *now,
        *decode_now, *push, *pull, *flush;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KKOkiy*OOOOOOOOOOOO", kwlist, &unprotect,
                                     &ctx, &session, &ssrc, &clockrate, &opus, &dtls,
                                     &connected, &receiver, &queue, &table, &active, &batch,
                                     &now, &decode_now, &push, &pull, &flush))
        return -1;
    memset(self->opus, 0, sizeof self->opus);
    for (Py_ssize_t i = 0; i < opus.len; i++)
        self->opus[((unsigned char *)opus.buf)[i] & 0x7F] = 1;
    PyBuffer_Release(&opus);
    if (!unprotect || !ctx || clockrate <= 0 || ssrc > 0xFFFFFFFFUL) {
        PyErr_SetString(PyExc_ValueError, "bad libsrtp address, SSRC or clock rate");
        return -1;
    }
    if (!PyDict_Check(table) || !PyDict_Check(active) || PySequence_Size(queue) < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "ssrc_table and active are dicts, queue a sequence");
        return -1;
    }
    if (!PyCallable_Check(now) || !PyCallable_Check(decode_now) || !PyCallable_Check(push)
        || !PyCallable_Check(pull) || !PyCallable_Check(flush)) {
        PyErr_SetString(PyExc_TypeError, "now, decode_now, push, pull and flush are callables");
        return -1;
    }
    PyObject *key = PyLong_FromUnsignedLong(ssrc);
    if (key == NULL)
        return -1;
    Py_XSETREF(self->ssrc_key, key);
#define KEEP(field, value) do { Py_INCREF(value); Py_XSETREF(self->field, value); } while (0)
    KEEP(session, session); KEEP(dtls, dtls); KEEP(connected, connected);
    KEEP(receiver, receiver); KEEP(queue, queue); KEEP(ssrc_table, table);
    KEEP(active, active); KEEP(batch, batch); KEEP(now_fn, now); KEEP(decode_now, decode_now);
    KEEP(push, push); KEEP(pull, pull); KEEP(flush, flush);
#undef KEEP
    self->unprotect = (unprotect_fn)(uintptr_t)unprotect;
    self->ctx = (void *)(uintptr_t)ctx;
    self->ssrc = (uint32_t)ssrc;
    self->clockrate = clockrate;
    self->has_base = self->has_max = self->has_last = 0;
    self->cycles = self->received = self->jitter_q4 = 0;
    self->last_seq = -1;
    self->taken = self->refused = self->late = self->rx_bytes = self->rx_packets = 0;
    self->cpu_ns = self->count = 0;
    self->since_push = 0;
    self->stale = 0;
    self->fake_time = -1.0;
    return 0;
}

static PyObject *Receiver_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    return type->tp_alloc(type, 0);
}

static void receiver_clear_held(Receiver *self) {
    for (Py_ssize_t i = 0; i < self->nheld; i++)
        Py_CLEAR(self->held[i].payload);
    self->nheld = 0;
}

static int Receiver_traverse(Receiver *self, visitproc visit, void *arg) {
    Py_VISIT(self->session); Py_VISIT(self->dtls); Py_VISIT(self->connected);
    Py_VISIT(self->receiver); Py_VISIT(self->queue); Py_VISIT(self->ssrc_table);
    Py_VISIT(self->active); Py_VISIT(self->batch); Py_VISIT(self->now_fn);
    Py_VISIT(self->decode_now); Py_VISIT(self->push); Py_VISIT(self->pull);
    Py_VISIT(self->flush);
    return 0;
}

static int Receiver_clear(Receiver *self) {
    receiver_clear_held(self);
    Py_CLEAR(self->session); Py_CLEAR(self->dtls); Py_CLEAR(self->connected);
    Py_CLEAR(self->receiver); Py_CLEAR(self->queue); Py_CLEAR(self->ssrc_table);
    Py_CLEAR(self->ssrc_key); Py_CLEAR(self->active); Py_CLEAR(self->batch);
    Py_CLEAR(self->now_fn); Py_CLEAR(self->decode_now); Py_CLEAR(self->push);
    Py_CLEAR(self->pull); Py_CLEAR(self->flush);
    return 0;
}

static void Receiver_dealloc(Receiver *self) {
    PyObject_GC_UnTrack(self);
    Receiver_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline int uint16_gt(int a, int b) {  /* aiortc.utils.uint16_gt */
    int half = 0x8000;
    return ((a > b) && (a - b < half)) || ((a < b) && (b - a > half));
}

/* What RtpIn.payload_span does: 0 and the span, or -1 where aiortc's parser refuses. */
static int payload_span(const unsigned char *p, int end, int *start, int *stop) {
    if (end < 12 || (p[0] >> 6) != 2)
        return -1;
    int pos = 12 + 4 * (p[0] & 0x0F);
    if (end < pos)
        return -1;
    if (p[0] & 0x10) {
        if (end < pos + 4)
            return -1;
        pos += 4 + 4 * ((p[pos + 2] << 8) | p[pos + 3]);
        if (end < pos)
            return -1;
    }
    if (p[0] & 0x20) {
        int pad = p[end - 1];
        if (!pad || pad > end - pos)
            return -1;
        end -= pad;
    }
    *start = pos;
    *stop = end;
    return 0;
}

/* StreamStatistics.add, with time.time() read here */
static void stats_add(Receiver *self, int seq, uint32_t ts) {
    int in_order = !self->has_max || uint16_gt(seq, self->max_seq);
    self->received++;
    if (!self->has_base) {
        self->base_seq = seq;
        self->has_base = 1;
    }
    if (!in_order)
        return;
    double now = self->fake_time;
    if (now < 0) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        now = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    }
    long long arrival = (long long)(now * (double)self->clockrate);
    if (self->has_max && seq < self->max_seq)
        self->cycles += 1 << 16;
    self->max_seq = seq;
    self->has_max = 1;
    if (self->has_last && (long long)ts != self->last_timestamp && self->received > 1) {
        long long d = (arrival - self->last_arrival) - ((long long)ts - self->last_timestamp);
        if (d < 0)
            d = -d;
        self->jitter_q4 += d - ((self->jitter_q4 + 8) >> 4);
    }
    self->last_arrival = arrival;
    self->last_timestamp = ts;
    self->has_last = 1;
}

static int call0(PyObject *fn) {
    PyObject *r = PyObject_CallNoArgs(fn);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* A packet of this stream goes the Python way: hand it the state first (once). */
static int hand_over(Receiver *self) {
    if (self->stale)
        return 0;
    self->stale = 1;
    return call0(self->push);
}

/* 1: taken; 0: not ours (the caller hands it on); -1: an exception */
static int receiver_take(Receiver *self, const unsigned char *d, Py_ssize_t n) {
    if (n < 12 || !(d[0] > 127 && d[0] < 192) || (d[1] > 191 && d[1] < 209))
        return 0;
    uint32_t ssrc = ((uint32_t)d[8] << 24) | ((uint32_t)d[9] << 16) | ((uint32_t)d[10] << 8) | d[11];
    int mine = ssrc == self->ssrc;
    PyObject *v = PyObject_GetAttr(self->dtls, s_state);
    if (v == NULL)
        return -1;
    int ok = v == self->connected;
    Py_DECREF(v);
    if (ok) {
        v = PyObject_GetAttr(self->dtls, s_rx_srtp);
        if (v == NULL)
            return -1;
        ok = v == self->session;
        Py_DECREF(v);
    }
    if (ok) {
        Py_ssize_t queued = PySequence_Size(self->queue);
        if (queued < 0)
            return -1;
        ok = queued == 0;
    }
    if (ok)
        ok = self->opus[d[1] & 0x7F] && mine;
    if (ok) {
        PyObject *routed = PyDict_GetItemWithError(self->ssrc_table, self->ssrc_key);
        if (routed == NULL && PyErr_Occurred())
            return -1;
        ok = routed == self->receiver;
    }
    if (!ok)
        return mine && hand_over(self) < 0 ? -1 : 0;
    /* from here on the packet is this path's, as it would be aiortc's */
    if (self->stale) {
        if (call0(self->pull) < 0)
            return -1;
        self->stale = 0;
    }
    self->rx_bytes += (unsigned long long)n;
    self->rx_packets++;
    if (n > BUFFER) {  /* FastSrtp raises ValueError: refused */
        self->refused++;
        return 1;
    }
    unsigned char buf[BUFFER];
    memcpy(buf, d, (size_t)n);
    int len = (int)n;
    if (self->unprotect(self->ctx, buf, &len) != 0) {
        self->refused++;
        return 1;
    }
    v = PyObject_GetAttr(self->receiver, s_enabled);
    if (v == NULL)
        return -1;
    int enabled = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (enabled <= 0)
        return enabled < 0 ? -1 : 1;
    int start, stop;
    if (payload_span(buf, len, &start, &stop) < 0)
        return 1;  /* malformed: aiortc's parser refuses it and drops it too */
    int seq = (buf[2] << 8) | buf[3];
    uint32_t ts = ((uint32_t)buf[4] << 24) | ((uint32_t)buf[5] << 16) | ((uint32_t)buf[6] << 8) | buf[7];
    self->count++;
    if (self->count % ACTIVE_EVERY == 1 || !PyDict_Contains(self->active, self->ssrc_key)) {
        PyObject *now = PyObject_CallNoArgs(self->now_fn);
        if (now == NULL)
            return -1;
        int rc = PyDict_SetItem(self->active, self->ssrc_key, now);
        Py_DECREF(now);
        if (rc < 0)
            return -1;
    }
    stats_add(self, seq, ts);
    self->taken++;
    if (++self->since_push >= RX_SYNC_EVERY) {
        self->since_push = 0;
        if (call0(self->push) < 0)
            return -1;
    }
    /* MicDecoder.add: a late or repeated number is counted, and goes on with its number
     * (server/media/recovery.py puts the packets back in order and drops repeats) */
    if (self->last_seq >= 0 && !uint16_gt(seq, self->last_seq))
        self->late++;
    else
        self->last_seq = seq;
    if (stop <= start)
        return 1;  /* an empty payload holds no audio (MicDecoder.add) */
    PyObject *payload = PyBytes_FromStringAndSize((const char *)buf + start, stop - start);
    if (payload == NULL)
        return -1;
    int holding = 0;
    if (self->batch != Py_None) {
        v = PyObject_GetAttr(self->batch, s_holding);
        if (v == NULL) {
            Py_DECREF(payload);
            return -1;
        }
        holding = PyObject_IsTrue(v);
        Py_DECREF(v);
        if (holding < 0) {
            Py_DECREF(payload);
            return -1;
        }
    }
    if (!holding) {
        PyObject *r = PyObject_CallFunction(self->decode_now, "kOi", (unsigned long)ts, payload,
                                            seq);
        Py_DECREF(payload);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
        return 1;
    }
    Held *h = &self->held[self->nheld++];
    h->ts = ts;
    h->seq = seq;
    h->at = mono_now();
    h->payload = payload;
    if (self->nheld >= MAX_HELD && call0(self->flush) < 0)
        return -1;
    return 1;
}

static PyObject *receiver_call(Receiver *self, PyObject *original, PyObject *data,
                               PyObject *addr) {
    if (PyBytes_CheckExact(data)) {
        long long t0 = thread_ns();
        int rc = receiver_take(self, (const unsigned char *)PyBytes_AS_STRING(data),
                               PyBytes_GET_SIZE(data));
        if (rc < 0)
            return NULL;
        if (rc > 0) {
            self->cpu_ns += (unsigned long long)(thread_ns() - t0);
            Py_RETURN_NONE;
        }
    }
    PyObject *argv[2] = {data, addr};
    return PyObject_Vectorcall(original, argv, 2, NULL);
}

/* take(data) -> bool: what the Port does, without an original to hand on to (tests) */
static PyObject *Receiver_take(Receiver *self, PyObject *data) {
    if (!PyBytes_CheckExact(data)) {
        PyErr_SetString(PyExc_TypeError, "take(data: bytes)");
        return NULL;
    }
    int rc = receiver_take(self, (const unsigned char *)PyBytes_AS_STRING(data),
                           PyBytes_GET_SIZE(data));
    if (rc < 0)
        return NULL;
    return PyBool_FromLong(rc);
}

/* drain() -> [(ts, payload, arrival monotonic time, seq)], oldest first; none held after */
static PyObject *Receiver_drain(Receiver *self, PyObject *Py_UNUSED(ignored)) {
    Py_ssize_t n = self->nheld;
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Held *h = &self->held[i];
        PyObject *item = Py_BuildValue("(kOdi)", (unsigned long)h->ts, h->payload, h->at, h->seq);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    receiver_clear_held(self);
    return out;
}

static PyObject *opt_int(int has, long long value) {
    if (!has)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(value);
}

/* state() -> (base_seq, max_seq, cycles, packets_received, jitter_q4, last_arrival,
 *             last_timestamp, last_seq, rx_bytes, rx_packets); the rx counts start again */
static PyObject *Receiver_state(Receiver *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *items[8] = {
        opt_int(self->has_base, self->base_seq), opt_int(self->has_max, self->max_seq),
        PyLong_FromLongLong(self->cycles), PyLong_FromLongLong(self->received),
        PyLong_FromLongLong(self->jitter_q4), opt_int(self->has_last, self->last_arrival),
        opt_int(self->has_last, self->last_timestamp), opt_int(self->last_seq >= 0, self->last_seq),
    };
    PyObject *out = NULL;
    int ok = 1;
    for (int i = 0; i < 8; i++)
        ok = ok && items[i] != NULL;
    if (ok)
        out = Py_BuildValue("(OOOOOOOOKK)", items[0], items[1], items[2], items[3], items[4],
                            items[5], items[6], items[7], self->rx_bytes, self->rx_packets);
    for (int i = 0; i < 8; i++)
        Py_XDECREF(items[i]);
    if (out != NULL)
        self->rx_bytes = self->rx_packets = 0;
    return out;
}

static int opt_arg(PyObject *o, int *has, long long *value) {
    if (o == Py_None) {
        *has = 0;
        *value = 0;
        return 0;
    }
    *value = PyLong_AsLongLong(o);
    if (*value == -1 && PyErr_Occurred())
        return -1;
    *has = 1;
    return 0;
}

/* load(base_seq, max_seq, cycles, packets_received, jitter_q4, last_arrival,
 *      last_timestamp, last_seq): the Python objects' state, after the Python path ran */
static PyObject *Receiver_load(Receiver *self, PyObject *args) {
    PyObject *base, *max, *arrival, *timestamp, *last;
    long long cycles, received, jitter;
    if (!PyArg_ParseTuple(args, "OOLLLOOO", &base, &max, &cycles, &received, &jitter,
                          &arrival, &timestamp, &last))
        return NULL;
    int hb, hm, ha, ht, hl;
    long long b, m, a, t, l;
    if (opt_arg(base, &hb, &b) < 0 || opt_arg(max, &hm, &m) < 0 || opt_arg(arrival, &ha, &a) < 0
        || opt_arg(timestamp, &ht, &t) < 0 || opt_arg(last, &hl, &l) < 0)
        return NULL;
    if ((hb && (b < 0 || b > 0xFFFF)) || (hm && (m < 0 || m > 0xFFFF)) || (hl && (l < 0 || l > 0xFFFF))
        || ha != ht) {
        PyErr_SetString(PyExc_ValueError, "not a StreamStatistics state");
        return NULL;
    }
    self->has_base = hb; self->base_seq = (int)b;
    self->has_max = hm; self->max_seq = (int)m;
    self->cycles = cycles; self->received = received; self->jitter_q4 = jitter;
    self->has_last = ha; self->last_arrival = a; self->last_timestamp = t;
    self->last_seq = hl ? (int)l : -1;
    Py_RETURN_NONE;
}

/* counts() -> (taken, refused, late, cpu_ns, held, stale) since the start */
static PyObject *Receiver_counts(Receiver *self, PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("(KKKKni)", self->taken, self->refused, self->late, self->cpu_ns,
                         self->nheld, self->stale);
}

static PyObject *Receiver_hand_over(Receiver *self, PyObject *Py_UNUSED(ignored)) {
    if (hand_over(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Receiver_fake_time(Receiver *self, PyObject *arg) {
    double t = PyFloat_AsDouble(arg);
    if (t == -1.0 && PyErr_Occurred())
        return NULL;
    self->fake_time = t;
    Py_RETURN_NONE;
}

static PyMethodDef Receiver_methods[] = {
    {"take", (PyCFunction)Receiver_take, METH_O,
     "take(data) -> True if the packet was this path's (taken, or dropped as the Python path "
     "drops it); False: the caller hands it on"},
    {"drain", (PyCFunction)Receiver_drain, METH_NOARGS,
     "the packets held for the tick: [(RTP time, payload, arrival time.monotonic(), seq)]"},
    {"state", (PyCFunction)Receiver_state, METH_NOARGS,
     "(base_seq, max_seq, cycles, packets_received, jitter_q4, last_arrival, last_timestamp, "
     "last_seq, rx_bytes, rx_packets); the rx counts start again from 0"},
    {"load", (PyCFunction)Receiver_load, METH_VARARGS,
     "load(base_seq, max_seq, cycles, packets_received, jitter_q4, last_arrival, "
     "last_timestamp, last_seq): the state the Python path left"},
    {"counts", (PyCFunction)Receiver_counts, METH_NOARGS,
     "(taken, refused, late, cpu_ns, held, stale)"},
    {"hand_over", (PyCFunction)Receiver_hand_over, METH_NOARGS,
     "a packet of this stream is about to take the Python path: push the state (once)"},
    {"fake_time", (PyCFunction)Receiver_fake_time, METH_O,
     "tests: the wall-clock time the statistics read (a negative value: the real clock)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReceiverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "server.media._fastrtp.Receiver",
    .tp_doc = "One stream's inbound SRTP (mic packets), taken and held for the tick in C.",
    .tp_basicsize = sizeof(Receiver),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Receiver_new,
    .tp_init = (initproc)Receiver_init,
    .tp_dealloc = (destructor)Receiver_dealloc,
    .tp_traverse = (traverseproc)Receiver_traverse,
    .tp_clear = (inquiry)Receiver_clear,
    .tp_methods = Receiver_methods,
};

/* Port(receiver, original): callable(data, addr) in a protocol's datagram_received */
typedef struct {
    PyObject_HEAD
    Receiver *rx;
    PyObject *original;
    vectorcallfunc vectorcall;
} Port;

static PyObject *Port_vectorcall(Port *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 2 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "datagram_received(data, addr)");
        return NULL;
    }
    return receiver_call(self->rx, self->original, args[0], args[1]);
}

static int Port_init(Port *self, PyObject *args, PyObject *kwds) {
    PyObject *rx, *original;
    if (!PyArg_ParseTuple(args, "O!O", &ReceiverType, &rx, &original))
        return -1;
    if (!PyCallable_Check(original)) {
        PyErr_SetString(PyExc_TypeError, "original is a callable");
        return -1;
    }
    Py_INCREF(rx);
    Py_XSETREF(self->rx, (Receiver *)rx);
    Py_INCREF(original);
    Py_XSETREF(self->original, original);
    return 0;
}

static PyObject *Port_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Port *self = (Port *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->vectorcall = (vectorcallfunc)Port_vectorcall;
    return (PyObject *)self;
}

static int Port_traverse(Port *self, visitproc visit, void *arg) {
    Py_VISIT(self->rx);
    Py_VISIT(self->original);
    return 0;
}

static int Port_clear(Port *self) {
    Py_CLEAR(self->rx);
    Py_CLEAR(self->original);
    return 0;
}

static void Port_dealloc(Port *self) {
    PyObject_GC_UnTrack(self);
    Port_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Port_get_original(Port *self, void *closure) {
    Py_INCREF(self->original);
    return self->original;
}

static PyGetSetDef Port_getset[] = {
    {"original", (getter)Port_get_original, NULL, "the protocol's own datagram_received", NULL},
    {NULL},
};

static PyTypeObject PortType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "server.media._fastrtp.Port",
    .tp_doc = "Port(receiver, original): a protocol's datagram_received, the Receiver first.",
    .tp_basicsize = sizeof(Port),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Port, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = Port_new,
    .tp_init = (initproc)Port_init,
    .tp_dealloc = (destructor)Port_dealloc,
    .tp_traverse = (traverseproc)Port_traverse,
    .tp_clear = (inquiry)Port_clear,
    .tp_getset = Port_getset,
};

static struct PyModuleDef fastrtp_module = {
    PyModuleDef_HEAD_INIT, "_fastrtp",
    "RTP packets in C: outbound (header, SRTP, sendto) and the mic packets (SRTP, header,\n"
    "RTCP statistics, held for the tick); see server/media/fastrtp.py.", -1, NULL,
};

PyMODINIT_FUNC PyInit__fastrtp(void) {
    if (PyType_Ready(&SenderType) < 0 || PyType_Ready(&ReceiverType) < 0
        || PyType_Ready(&PortType) < 0)
        return NULL;
    s_state = PyUnicode_InternFromString("_state");
    s_rx_srtp = PyUnicode_InternFromString("_rx_srtp");
    s_enabled = PyUnicode_InternFromString("_enabled");
    s_holding = PyUnicode_InternFromString("holding");
    if (!s_state || !s_rx_srtp || !s_enabled || !s_holding)
        return NULL;
    PyObject *m = PyModule_Create(&fastrtp_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&SenderType);
    if (PyModule_AddObject(m, "Sender", (PyObject *)&SenderType) < 0) {
        Py_DECREF(&SenderType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ReceiverType);
    if (PyModule_AddObject(m, "Receiver", (PyObject *)&ReceiverType) < 0) {
        Py_DECREF(&ReceiverType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&PortType);
    if (PyModule_AddObject(m, "Port", (PyObject *)&PortType) < 0) {
        Py_DECREF(&PortType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
