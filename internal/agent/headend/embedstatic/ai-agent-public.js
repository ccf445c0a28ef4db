// ai-agent embed client: defines globalThis.AiAgentChat, which talks to an
// embed headend's POST /v1/chat and reads its event stream, and mounts a
// small chat widget on every element with a data-ai-agent-chat attribute.
// Self-contained: no dependencies, no build step.
(function (root) {
  'use strict';

  function uuid() {
    if (root.crypto && typeof root.crypto.randomUUID === 'function') return root.crypto.randomUUID();
    return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, function (c) {
      var r = Math.random() * 16 | 0;
      return (c === 'x' ? r : (r & 0x3 | 0x8)).toString(16);
    });
  }

  // AiAgentChat is one conversation with an embed headend. opts: endpoint
  // (the headend's base URL; '' is this page's origin), agentId, format,
  // clientId, token (sent as a bearer token), agentGuid (a Netdata agent
  // dashboard's machine GUID, sent as X-Netdata-Agent-GUID), onEvent(event).
  function AiAgentChat(opts) {
    opts = opts || {};
    this.endpoint = String(opts.endpoint == null ? '' : opts.endpoint).replace(/\/+$/, '');
    this.agentId = opts.agentId;
    this.format = opts.format;
    this.token = opts.token;
    this.agentGuid = opts.agentGuid;
    this.onEvent = typeof opts.onEvent === 'function' ? opts.onEvent : function () {};
    this.clientId = opts.clientId || null;
    this.sessionId = null;
    this.history = [];
    this.controller = null;
  }

  AiAgentChat.prototype.getSessionId = function () { return this.sessionId; };
  AiAgentChat.prototype.setSessionId = function (id) { this.sessionId = id; };
  AiAgentChat.prototype.getClientId = function () { return this.clientId; };
  AiAgentChat.prototype.setClientId = function (id) { this.clientId = id; };
  AiAgentChat.prototype.getHistory = function () { return this.history.slice(); };
  AiAgentChat.prototype.isLoading = function () { return this.controller !== null; };
  AiAgentChat.prototype.reset = function () { this.abort(); this.history = []; this.sessionId = null; };
  AiAgentChat.prototype.abort = function () {
    if (this.controller) { this.controller.abort(); this.controller = null; }
  };

  // ask sends message and resolves with the whole report once the stream
  // ends; events go to onEvent as they come.
  AiAgentChat.prototype.ask = async function (message) {
    if (this.controller) throw new Error('request_in_progress');
    message = String(message == null ? '' : message).trim();
    if (!message) throw new Error('message_required');
    var self = this;
    var controller = new AbortController();
    this.controller = controller;
    var report = '';
    var emit = function (ev) { try { self.onEvent(ev); } catch (e) { /* a listener's error is its own */ } };
    try {
      var headers = { 'Content-Type': 'application/json' };
      if (this.token) headers.Authorization = 'Bearer ' + this.token;
      if (this.agentGuid) headers['X-Netdata-Agent-GUID'] = this.agentGuid;
      var body = {
        message: message,
        clientId: this.clientId || undefined,
        history: this.history.filter(function (m) { return m.role === 'user' || m.role === 'assistant'; }),
        agentId: this.agentId,
        format: this.format
      };
      var resp = await fetch(this.endpoint + '/v1/chat', {
        method: 'POST', headers: headers, body: JSON.stringify(body), signal: controller.signal
      });
      if (!resp.ok) {
        var text = await resp.text();
        var err = new Error('request_failed: ' + resp.status + ' ' + text);
        emit({ type: 'error', code: 'request_failed', message: err.message });
        throw err;
      }
      var reader = resp.body.getReader();
      var decoder = new TextDecoder();
      var buf = '';
      var success = false;
      var handle = function (frame) {
        var name = 'message';
        var data = '';
        frame.split('\n').forEach(function (line) {
          if (line.indexOf('event:') === 0) name = line.slice(6).trim();
          else if (line.indexOf('data:') === 0) data += line.slice(5).replace(/^ /, '');
        });
        if (!data) return;
        var value;
        try { value = JSON.parse(data); } catch (e) { return; }
        switch (name) {
          case 'client':
            self.clientId = value.clientId;
            emit({ type: 'client', clientId: value.clientId, isNew: value.isNew });
            break;
          case 'meta':
            self.sessionId = value.sessionId;
            emit({ type: 'meta', sessionId: value.sessionId, turn: value.turn, agentId: value.agentId });
            break;
          case 'status':
            emit({ type: 'status', now: value.now, agent: value.agent, timestamp: value.timestamp });
            break;
          case 'report':
            report += value.chunk;
            emit({ type: 'report', chunk: value.chunk, report: report, index: value.index });
            break;
          case 'metrics':
            emit({ type: 'metrics', metrics: value });
            break;
          case 'done':
            success = !!value.success;
            emit({ type: 'done', success: success, metrics: value.metrics, reportLength: value.reportLength, report: report });
            break;
          case 'error':
            emit({ type: 'error', code: value.code, message: value.message });
            break;
        }
      };
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buf += decoder.decode(chunk.value, { stream: true });
        var i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          handle(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
      }
      if (success) {
        this.history.push({ role: 'user', content: message });
        this.history.push({ role: 'assistant', content: report });
      }
      return report;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  };

  var css = '.aiac{border:1px solid #ccc;border-radius:8px;padding:.75rem;font:14px/1.45 system-ui,sans-serif;display:flex;flex-direction:column;gap:.5rem}' +
    '.aiac-log{display:flex;flex-direction:column;gap:.5rem;max-height:28rem;overflow-y:auto}' +
    '.aiac-msg{padding:.5rem .7rem;border-radius:6px;white-space:pre-wrap;word-wrap:break-word}' +
    '.aiac-user{background:#e8f0fe;align-self:flex-end}.aiac-assistant{background:#f4f4f4}' +
    '.aiac-error{background:#fdecea;color:#611a15}.aiac-status{color:#666;font-size:12px;min-height:1em}' +
    '.aiac-form{display:flex;gap:.5rem}.aiac-input{flex:1;padding:.4rem}';

  // mount builds the widget in el; opts as for AiAgentChat, with the
  // endpoint also read from el's data-endpoint.
  AiAgentChat.mount = function (el, opts) {
    opts = opts || {};
    var doc = el.ownerDocument;
    if (!doc.getElementById('aiac-style')) {
      var style = doc.createElement('style');
      style.id = 'aiac-style';
      style.textContent = css;
      doc.head.appendChild(style);
    }
    var make = function (tag, cls) { var n = doc.createElement(tag); if (cls) n.className = cls; return n; };
    var box = make('div', 'aiac');
    var log = make('div', 'aiac-log');
    var status = make('div', 'aiac-status');
    var form = make('form', 'aiac-form');
    var input = make('input', 'aiac-input');
    input.type = 'text';
    input.name = 'message';
    input.placeholder = 'Ask a question';
    input.setAttribute('aria-label', 'Question');
    var send = make('button', 'aiac-send');
    send.type = 'submit';
    send.textContent = 'Send';
    form.appendChild(input);
    form.appendChild(send);
    box.appendChild(log);
    box.appendChild(status);
    box.appendChild(form);
    el.appendChild(box);
    var current = null;
    var chat = new AiAgentChat({
      endpoint: opts.endpoint != null ? opts.endpoint : (el.getAttribute('data-endpoint') || ''),
      agentId: opts.agentId || el.getAttribute('data-agent') || undefined,
      format: opts.format, token: opts.token, agentGuid: opts.agentGuid, clientId: opts.clientId,
      onEvent: function (ev) {
        if (ev.type === 'status') status.textContent = ev.now;
        if (ev.type === 'report' && current) current.textContent = ev.report;
        if (ev.type === 'error' && current) { current.className = 'aiac-msg aiac-error'; current.textContent = ev.message; }
        if (typeof opts.onEvent === 'function') opts.onEvent(ev);
      }
    });
    // Text only: the answer is shown as text, never parsed as HTML.
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var q = input.value.trim();
      if (!q || chat.isLoading()) return;
      input.value = '';
      var u = make('div', 'aiac-msg aiac-user');
      u.textContent = q;
      log.appendChild(u);
      current = make('div', 'aiac-msg aiac-assistant');
      current.textContent = '…';
      log.appendChild(current);
      send.disabled = true;
      chat.ask(q).catch(function (err) {
        if (current) { current.className = 'aiac-msg aiac-error'; current.textContent = String(err && err.message || err); }
      }).finally(function () {
        send.disabled = false;
        status.textContent = '';
        log.scrollTop = log.scrollHeight;
      });
    });
    return chat;
  };

  root.AiAgentChat = AiAgentChat;

  function autoMount() {
    var els = root.document ? root.document.querySelectorAll('[data-ai-agent-chat]') : [];
    for (var i = 0; i < els.length; i++) {
      if (!els[i].__aiAgentChat) els[i].__aiAgentChat = AiAgentChat.mount(els[i]);
    }
  }
  if (root.document) {
    if (root.document.readyState === 'loading') root.document.addEventListener('DOMContentLoaded', autoMount);
    else autoMount();
  }
})(globalThis);
