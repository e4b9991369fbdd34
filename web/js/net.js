// The WebSocket to the server: JSON messages, reconnect with backoff, clock offset.

const BACKOFF = [500, 1000, 2000, 4000, 8000];
// Close codes >= 4000 are the server's "do not come back" (bad token, kicked, room gone).
const FINAL_CLOSE = 4000;

export class Connection {
  /**
   * @param {string} token  seat token
   * @param {{onMessage: Function, onStatus: Function, onFinal: Function}} hooks
   */
  constructor(token, hooks) {
    this.token = token;
    this.hooks = hooks;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.pingSent = 0;
  }

  open() {
    if (this.stopped) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws?token=${encodeURIComponent(this.token)}`);
    this.ws = ws;
    this.hooks.onStatus("connecting");
    ws.onopen = () => {
      // The backoff restarts on `welcome`, not here: a connect the server throttles is
      // opened, refused (rate_limited) and closed with 1013, and must back off further.
      this.hooks.onStatus("open");
      // No `hello`: the server sends welcome, room and view on connect by itself, and a
      // second welcome would start a second voice negotiation.
      this.ping();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(), 10000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "welcome") this.attempt = 0;
      if (msg.type === "pong" && this.pingSent) {
        msg.rtt = (performance.now() - this.pingSent) / 1000;
        this.pingSent = 0;
      }
      this.hooks.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (ev.code >= FINAL_CLOSE && ev.code < 5000) {
        this.stopped = true;
        this.hooks.onFinal(ev.code, ev.reason);
        return;
      }
      this.hooks.onStatus("closed");
      this.scheduleRetry();
    };
    ws.onerror = () => { /* onclose follows and retries */ };
  }

  scheduleRetry() {
    if (this.stopped) return;
    const base = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    this.attempt += 1;
    // Jitter so a room full of phones does not reconnect in lockstep.
    const delay = base * (0.75 + Math.random() * 0.5);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  ping() {
    this.pingSent = performance.now();
    this.send({ type: "ping", t: Date.now() / 1000 });
  }

  /** Send a message; false when offline (the caller tells the player). */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  close() {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}
