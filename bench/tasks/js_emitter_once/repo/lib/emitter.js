'use strict';

/** A small event emitter: listeners by event name, called in the order they were added. */
class Emitter {
  constructor() {
    this.listeners = new Map();
  }

  on(event, listener) {
    const list = this.listeners.get(event) || [];
    list.push(listener);
    this.listeners.set(event, list);
    return this;
  }

  off(event, listener) {
    const list = this.listeners.get(event) || [];
    this.listeners.set(event, list.filter((l) => l !== listener));
    return this;
  }

  once(event, listener) {
    const wrapper = (...args) => {
      this.off(event, listener);
      listener(...args);
    };
    return this.on(event, wrapper);
  }

  /** Call the event's listeners with `args`; whether there were any. */
  emit(event, ...args) {
    const list = [...(this.listeners.get(event) || [])];
    for (const listener of list) listener(...args);
    return list.length > 0;
  }

  listenerCount(event) {
    return (this.listeners.get(event) || []).length;
  }
}

module.exports = { Emitter };
