// Package cache is a small LRU cache with expiry.
package cache

import (
	"container/list"
	"errors"
	"sync"
	"time"
)

// Clock tells the time; tests replace it.
type Clock interface {
	Now() time.Time
}

type entry[K comparable, V any] struct {
	key     K
	value   V
	expires time.Time
}

// Cache holds at most Capacity entries, evicting the least recently used.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	capacity int
	ttl      time.Duration
	order    *list.List
	items    map[K]*list.Element
	clock    Clock
}

// New makes a cache.
func New[K comparable, V any](capacity int, ttl time.Duration, clock Clock) *Cache[K, V] {
	return &Cache[K, V]{capacity: capacity, ttl: ttl, order: list.New(), items: map[K]*list.Element{}, clock: clock}
}

// Get returns the value for key, if present and not expired.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if c.clock.Now().After(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Put stores value under key.
func (c *Cache[K, V]) Put(key K, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.Remove(el)
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key, value, c.clock.Now().Add(c.ttl)})
	for c.order.Len() > c.capacity {
		c.remove(c.order.Back())
	}
}

func (c *Cache[K, V]) remove(el *list.Element) {
	c.order.Remove(el)
	delete(c.items, el.Value.(*entry[K, V]).key)
}

type (
	// Stats counts hits and misses.
	Stats struct{ Hits, Misses int }
	// Option configures a cache.
	Option func(*options)
	options struct{ ttl time.Duration }
)

const DefaultTTL = time.Minute

var ErrClosed = errors.New("cache closed")
