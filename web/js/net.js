// The WebSocket to the server: JSON messages, reconnect with backoff, clock offset.
// Cluster mode (docs/cluster.md): the socket goes to the node serving the room (`node`),
// which may differ from the page's own server; a `moved` message and close 4010 send it
// on, and after a drop it asks where the room went (`hooks.locate`) before reconnecting.

const BACKOFF = [500, 1000, 2000, 4000, 8000];
// A server that stops answering (frozen, or a phone's Wi-Fi gone) keeps its socket open:
// ping every PING_EVERY ms and give the socket up when a ping waits DEAD_AFTER ms.
const PING_EVERY = 2000;
const DEAD_AFTER = 3000;
// Close codes >= 4000 are the server's "do not come back" (bad token, kicked, room gone)...
const FINAL_CLOSE = 4000;
// ... except 4010: the room moved to another node; reconnect there.
const MOVED = 4010;

export class Connection {
  /**
   * @param {string} token  seat token
   * @param {{onMessage: Function, onStatus: Function, onFinal: Function, locate?: Function}} hooks
   *   locate(nodes) -> Promise<string|null>: the URL of the node serving the room now
   * @param {string|null} node  base URL of the room's node (cluster mode); null: this page's server
   */
  constructor(token, hooks, node = null) {
    this.token = token;
    this.hooks = hooks;
    this.node = node;
    this.nodes = [];
    this.moveTo = null;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.pingSent = 0;
    this.heard = 0;
  }

  wsUrl() {
    const query = `/ws?token=${encodeURIComponent(this.token)}`;
    if (!this.node) {
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      return `${proto}//${location.host}${query}`;
    }
    const url = new URL(this.node);
    const proto = url.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${url.host}${url.pathname.replace(/\/$/, "")}${query}`;
  }

  open() {
    if (this.stopped) return;
    this.moveTo = null;
    const ws = new WebSocket(this.wsUrl());
    this.ws = ws;
    this.hooks.onStatus("connecting");
    // A frozen server accepts the TCP connection but never answers the upgrade.
    clearInterval(this.pingTimer);
    this.pingSent = performance.now();
    this.heard = 0;
    this.pingTimer = setInterval(() => this.checkAlive(ws), PING_EVERY);
    ws.onopen = () => {
      // The backoff restarts on `welcome`, not here: a connect the server throttles is
      // opened, refused (rate_limited) and closed with 1013, and must back off further.
      this.hooks.onStatus("open");
      // No `hello`: the server sends welcome, room and view on connect by itself, and a
      // second welcome would start a second voice negotiation.
      this.ping();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.checkAlive(ws), PING_EVERY);
    };
    ws.onmessage = (ev) => {
      this.heard = performance.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "welcome") {
        this.attempt = 0;
        if (msg.node) this.node = msg.node;
        if (Array.isArray(msg.nodes)) this.nodes = msg.nodes;
      } else if (msg.type === "moved") {
        this.moveTo = msg.node || null;
        return;
      } else if (msg.type === "nodes") {
        if (Array.isArray(msg.nodes)) this.nodes = msg.nodes;
        return;
      }
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
      if (ev.code === MOVED && this.moveTo) {
        // Handed over to a known node: go there at once, the player hardly notices.
        this.node = this.moveTo;
        this.hooks.onStatus("closed");
        this.open();
        return;
      }
      if (ev.code >= FINAL_CLOSE && ev.code < 5000 && ev.code !== MOVED) {
        this.stopped = true;
        this.hooks.onFinal(ev.code, ev.reason);
        return;
      }
      this.hooks.onStatus("closed");
      this.scheduleRetry();
    };
    ws.onerror = () => { /* onclose follows and retries */ };
  }

  /** Every PING_EVERY ms: a ping, or the socket given up when the last one waited too
   *  long with nothing heard since (its close handshake could hang: not awaited). */
  checkAlive(ws) {
    if (this.ws !== ws) return;
    const now = performance.now();
    if (this.pingSent && now - this.pingSent > DEAD_AFTER && now - this.heard > DEAD_AFTER) {
      clearInterval(this.pingTimer);
      this.ws = null;
      ws.onclose = ws.onmessage = ws.onerror = null;
      try { ws.close(); } catch { /* already closing */ }
      this.hooks.onStatus("closed");
      this.scheduleRetry();
      return;
    }
    if (!this.pingSent) this.ping();
  }

  /** Come back after `seconds` when a server said so (Retry-After), else by backoff. */
  scheduleRetry(seconds = 0) {
    if (this.stopped) return;
    if (seconds > 0) {
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.relocate(), seconds * 1000 * (0.9 + Math.random() * 0.2));
      return;
    }
    const base = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    this.attempt += 1;
    // Jitter so a room full of phones does not reconnect in lockstep.
    const delay = base * (0.75 + Math.random() * 0.5);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.relocate(), delay);
  }

  /** Reconnect; in cluster mode first ask where the room is served now. */
  async relocate() {
    if (this.stopped) return;
    if ((this.node || this.nodes.length) && this.hooks.locate) {
      try {
        const found = await this.hooks.locate([...this.nodes, this.node].filter(Boolean));
        if (found?.retryAfter) {
          // The room is moving (503 + Retry-After): ask again when told, not later.
          this.scheduleRetry(found.retryAfter);
          return;
        }
        if (found) this.node = found;
      } catch { /* every node refused: try the last one known */ }
    }
    this.open();
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
