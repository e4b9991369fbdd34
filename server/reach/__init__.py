"""Reaching the server: how phones on a network get to it.

Owns HTTPS (`https`), the listener that tells TLS from plain HTTP on one port
(`listen`), the self-made certificate (`tls`), the machine's LAN addresses
(`lan`) and the terminal's join banner (`banner`). Imports no other server
package.
"""
