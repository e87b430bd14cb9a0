"""Retrieval: chunking, embeddings, the FAISS and BM25 indexes, hybrid search and the repo map."""
