/* SPDX-License-Identifier: MIT */
/*
 * clof/clof.hpp -- clof locks as C++ mutexes (C++17): any clof lock as a
 * class with lock(), try_lock() and unlock() (the standard's Lockable), so
 * that std::lock_guard, std::unique_lock and std::scoped_lock take it.
 *
 *   #include <clof/clof.hpp>
 *   clof::mcs_mutex m;                        // a basic lock: header-only
 *   { std::lock_guard<clof::mcs_mutex> g(m);  ... }
 *
 *   #include <clof/compose.h>                 // a composition: link libclof
 *   CLOF_COMPOSE(tkt_mcs, ticket, mcs)
 *   using tkt_mcs_mutex = CLOF_CXX_COMPOSED_MUTEX(tkt_mcs);
 *
 * The contexts.  A clof lock takes a context per acquisition (the queue node
 * of MCS, CLH, Hemlock; lock.h), which must stay valid until the release,
 * and which a CLH lock may still refer to after it (lock/clh.h, "Node
 * lifetime").  lock() takes a context from a per-thread free list of that
 * context type (allocating one, zero-filled, when the list is empty),
 * acquires with it and keeps it in the mutex for unlock(), which releases
 * and gives it back to the list.  So a thread holding k locks of one
 * context type at once uses k contexts, in any unlock order.  Contexts are
 * never freed: a thread's list goes to a shared list when the thread ends
 * (later threads take from it), so memory stays at the most contexts in
 * use at once.  The cost over the C call: one thread-local list pop and
 * push per lock/unlock pair.
 *
 * As std::mutex: unlock() on the thread that locked (the mutex keeps the
 * owner's context, read only by the owner); not recursive; not movable.
 * Relaxed orders: none here; every access to the lock is the C lock's, and
 * the owner's context pointer is ordered by the lock itself.
 */
/** \file
 * clof locks as C++ mutexes (C++17): any clof lock as a class with lock(),
 * try_lock() and unlock() (the standard's Lockable), for std::lock_guard,
 * std::unique_lock and std::scoped_lock.
 *
 *     clof::mcs_mutex m;                        // a basic lock: header-only
 *     { std::lock_guard<clof::mcs_mutex> g(m); ... }
 *
 *     CLOF_COMPOSE(tkt_mcs, ticket, mcs)         // a composition: libclof
 *     using tkt_mcs_mutex = CLOF_CXX_COMPOSED_MUTEX(tkt_mcs);
 *
 * A mutex takes each acquisition's context from a per-thread free list;
 * the comment at the top of the header explains the contexts and the cost.
 */
#ifndef CLOF_CLOF_HPP
#define CLOF_CLOF_HPP

#include <clof/clof.h>

#include <mutex>
#include <new>

/** The C++ side of clof: its locks as mutexes (clof.hpp). */
namespace clof {
namespace detail {

/* A context and the link of the free list it sits in when unused.  Ctx is
 * the first member, so a Ctx * converts back to its node. */
template <typename Ctx> struct ctx_node {
    Ctx ctx;
    ctx_node *next;
};

template <typename Ctx> class ctx_pool {
    using node = ctx_node<Ctx>;
    struct shared_list { // lists of ended threads; never destroyed
        std::mutex m;
        node *head = nullptr;
    };
    static shared_list &shared()
    {
        static shared_list *s = new shared_list;
        return *s;
    }
    struct local_list {
        node *head = nullptr;
        ~local_list() // the thread ends: its contexts go to the shared list
        {
            if (head == nullptr)
                return;
            node *last = head;
            while (last->next != nullptr)
                last = last->next;
            shared_list &s = shared();
            std::lock_guard<std::mutex> g(s.m);
            last->next = s.head;
            s.head = head;
        }
    };
    static local_list &local()
    {
        thread_local local_list l;
        return l;
    }
    static node *from_shared()
    {
        shared_list &s = shared();
        std::lock_guard<std::mutex> g(s.m);
        node *n = s.head;
        if (n != nullptr)
            s.head = n->next;
        return n;
    }

  public:
    static Ctx *get()
    {
        local_list &l = local();
        node *n = l.head;
        if (n != nullptr)
            l.head = n->next;
        else if ((n = from_shared()) == nullptr)
            n = new node(); // value-initialised: a zero-filled context
        return &n->ctx;
    }
    static void put(Ctx *c)
    {
        node *n = reinterpret_cast<node *>(c);
        local_list &l = local();
        n->next = l.head;
        l.head = n;
    }
};

} // namespace detail

/** Any clof lock as a C++ mutex (Lockable): lock(), try_lock(), unlock().
 * Destroy (compositions, HMCS: their tree) runs in the destructor when
 * given.  As std::mutex: unlocked by the thread that locked it, not
 * recursive, not movable.  CLOF_CXX_MUTEX and CLOF_CXX_COMPOSED_MUTEX spell
 * the arguments of a clof lock.
 * \tparam Lock       the lock type, clof_NAME_t
 * \tparam Ctx        its context type, clof_NAME_ctx_t
 * \tparam Init       clof_NAME_init
 * \tparam Acquire    clof_NAME_acquire
 * \tparam TryAcquire clof_NAME_tryacquire
 * \tparam Release    clof_NAME_release
 * \tparam Destroy    clof_NAME_destroy, or nullptr for a lock without one
 */
template <typename Lock, typename Ctx, void (*Init)(Lock *),
          void (*Acquire)(Lock *, Ctx *), bool (*TryAcquire)(Lock *, Ctx *),
          void (*Release)(Lock *, Ctx *), void (*Destroy)(Lock *) = nullptr>
class basic_mutex {
  public:
    using native_handle_type = Lock *; /**< the C lock */

    /** An unlocked mutex (Init). */
    basic_mutex() noexcept { Init(&lock_); }
    /** Destroy, when given (the lock must be unlocked). */
    ~basic_mutex()
    {
        if constexpr (Destroy != nullptr)
            Destroy(&lock_);
    }
    basic_mutex(const basic_mutex &) = delete;            /**< not copyable */
    basic_mutex &operator=(const basic_mutex &) = delete; /**< not copyable */

    /** Acquire, waiting as the lock does; with a context from the calling
     *  thread's free list, kept until unlock. */
    void lock()
    {
        Ctx *c = detail::ctx_pool<Ctx>::get();
        Acquire(&lock_, c);
        owner_ = c;
    }
    /** Acquire if that needs no waiting: true when locked. */
    bool try_lock()
    {
        Ctx *c = detail::ctx_pool<Ctx>::get();
        if (!TryAcquire(&lock_, c)) {
            detail::ctx_pool<Ctx>::put(c);
            return false;
        }
        owner_ = c;
        return true;
    }
    /** Release (the thread that locked it) and give the context back. */
    void unlock()
    {
        Ctx *c = owner_;
        Release(&lock_, c);
        detail::ctx_pool<Ctx>::put(c);
    }
    /** The C lock, for the clof_NAME_* functions. */
    native_handle_type native_handle() noexcept { return &lock_; }

  private:
    Lock lock_;
    Ctx *owner_ = nullptr; // the holder's context: written and read by it
};

} // namespace clof

/* The mutex type of clof lock NAME (a basic lock or a lock declared with
 * the lock interface of lock.h), and of a composition or HMCS-style lock
 * with a tree to free (clof_NAME_destroy). */
/** The clof::basic_mutex of the clof lock name: a basic lock or any lock
 *  with the interface of lock.h and no tree to free. */
#define CLOF_CXX_MUTEX(name)                                                   \
    ::clof::basic_mutex<clof_##name##_t, clof_##name##_ctx_t,                  \
                        clof_##name##_init, clof_##name##_acquire,             \
                        clof_##name##_tryacquire, clof_##name##_release>
/** The clof::basic_mutex of a composition or HMCS-style lock name, whose
 *  destructor frees the tree (clof_NAME_destroy). */
#define CLOF_CXX_COMPOSED_MUTEX(name)                                          \
    ::clof::basic_mutex<clof_##name##_t, clof_##name##_ctx_t,                  \
                        clof_##name##_init, clof_##name##_acquire,             \
                        clof_##name##_tryacquire, clof_##name##_release,       \
                        clof_##name##_destroy>

namespace clof {
/* clof::tas_mutex, clof::mcs_mutex, clof::clh_mutex, clof::hemlock_mutex,
 * ... : every basic lock (lock/list.h). */
#define CLOF_CXX_BASIC_(name, NAME) using name##_mutex = CLOF_CXX_MUTEX(name);
/** \name The mutexes of the basic locks */
/**@{*/
/** The mutex of a basic lock: clof::NAME_mutex is CLOF_CXX_MUTEX(NAME). */
CLOF_BASIC_LOCKS(CLOF_CXX_BASIC_)
/**@}*/
#undef CLOF_CXX_BASIC_
} // namespace clof

#endif /* CLOF_CLOF_HPP */
