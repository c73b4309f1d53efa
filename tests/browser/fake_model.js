// A stand-in for the model anywidget passes to render({model, el}): the same methods, no kernel behind it.
// Like anywidget's (Backbone) model, set() stores the value and fires "change:<name>" at once, so a test
// pushes a trait the way the kernel does with window.__model.set(name, value).
function makeFakeModel(traits) {
  const listeners = new Map();             // event name -> callbacks
  const model = {
    saved: 0,                              // save_changes() calls (our widgets never make any)
    sent: [],                              // send() messages (likewise)
    get(name) { return traits[name]; },
    set(name, value) {
      traits[name] = value;
      model.trigger(`change:${name}`, value);
    },
    on(event, callback) {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(callback);
    },
    off(event, callback) {
      if (event === undefined) return listeners.clear();
      const kept = (listeners.get(event) || []).filter((f) => callback !== undefined && f !== callback);
      listeners.set(event, kept);
    },
    trigger(event, value) {
      for (const callback of [...(listeners.get(event) || [])]) callback(model, value);
    },
    save_changes() { model.saved += 1; },
    send(message) { model.sent.push(message); },
    listenerCount() {
      let n = 0;
      for (const callbacks of listeners.values()) n += callbacks.length;
      return n;
    },
  };
  return model;
}
