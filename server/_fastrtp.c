/* server._fastrtp: one listener's outbound RTP packet (header, SRTP, sendto) in C.
 *
 * The Python path (server/rtc.py, DirectRtp.send) does the same for each
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
 * it, or if its start-up check fails (server/fastrtp.py), the Python path
 * sends. No third-party header is needed: `srtp_protect` and the session are
 * passed as addresses taken from pylibsrtp's cffi binding.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
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

/* send(payload: bytes, tick: int) -> int: ticks sent since the last sync() */
static PyObject *Sender_send(Sender *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "send(payload: bytes, tick: int)");
        return NULL;
    }
    long long tick = PyLong_AsLongLong(args[1]);
    if (tick == -1 && PyErr_Occurred())
        return NULL;
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
    .tp_name = "server._fastrtp.Sender",
    .tp_doc = "One listener's outbound RTP: header, SRTP and sendto per packet, in C.",
    .tp_basicsize = sizeof(Sender),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Sender_new,
    .tp_init = (initproc)Sender_init,
    .tp_dealloc = (destructor)Sender_dealloc,
    .tp_methods = Sender_methods,
};

static struct PyModuleDef fastrtp_module = {
    PyModuleDef_HEAD_INIT, "_fastrtp",
    "Outbound RTP packets (header, SRTP, sendto) in C; see server/fastrtp.py.", -1, NULL,
};

PyMODINIT_FUNC PyInit__fastrtp(void) {
    if (PyType_Ready(&SenderType) < 0)
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
    return m;
}
