"""Bag-based replay: re-verify recorded verifier traffic with today's rules, robot spec and graph.

Offline and without ROS (rosbags reads and writes the bags): `bag` reads a
bag's verifier topics, `traffic` pairs requests with the answers the node
gave, `engine` answers them again, `compare` and `render` make the
regression table, `baseline` keeps accepted results, `outputs` compares two
recordings message for message (live replay).
"""
