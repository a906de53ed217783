/** Bind addresses that keep the server on this machine: the API has no authentication beyond them. */
const LOOPBACK_BINDS = new Set(['127.0.0.1', 'localhost', '::1']);

export const isLoopbackBind = (host: string): boolean => LOOPBACK_BINDS.has(host);

/** A `Host` header's name (port dropped) that can only mean this machine. */
export function isLoopbackName(host: string): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** A request's peer address that is this machine (IPv4 loopback, `::1`, or IPv4 loopback mapped into IPv6). */
export const isLoopbackPeer = (ip: string): boolean => /^(?:127\.|::1$|::ffff:127\.)/.test(ip);
